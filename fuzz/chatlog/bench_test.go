package chatlog

import (
	"maps"
	"slices"
	"testing"
)

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

// BenchmarkPathological parses each large input of TestPathological whole
// and reports its speed per byte (B/s): a parser that turns super-linear on
// one of them shows there as a rate far below the others'. This is the
// measured form of the linear-time goal; no test times it.
func BenchmarkPathological(b *testing.B) {
	inputs := pathological()
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		data := inputs[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				parseCheck(b, data)
			}
		})
	}
}
