package chatlog

import "testing"

// BenchmarkTailParseExecs measures how many FuzzTailParse executions one core
// runs per second on the seed inputs of ordinary size (under 8 KB), the
// speed the fuzz target itself allows, without the fuzzing engine's own
// coverage bookkeeping.
func BenchmarkTailParseExecs(b *testing.B) {
	small := seeds()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := small[i%len(small)]
		tailCheck(b, s, uint16((i*7)%(len(s)+1)))
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "execs/s")
}

// BenchmarkParseExecs measures how many FuzzParse executions one core runs
// per second on the seed inputs, the speed the fuzz target itself allows,
// without the fuzzing engine's own coverage bookkeeping.
func BenchmarkParseExecs(b *testing.B) {
	small := seeds()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		parseCheck(b, small[i%len(small)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "execs/s")
}
