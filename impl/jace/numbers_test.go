package jace

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"modernc.org/quickjs"
)

// TestJSNumbersSurviveFloat64 backs a claim reports/equivalent.txt makes
// about parseTree's UseNumber: views come from QuickJS's JSON.stringify,
// and every number it writes is written the same way by encoding/json
// after a round trip through float64 (both use the shortest round-trip
// digits and ECMAScript's choice between plain and exponent form). So
// RenderHTML shows the same text with or without UseNumber; only
// filterTree, the test oracle, reads hand-written spellings such as 1.50.
func TestJSNumbersSurviveFloat64(t *testing.T) {
	vm, err := quickjs.NewVM()
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	r := rand.New(rand.NewPCG(1, 2))
	xs := []float64{0, 1e21, 1e-7, 1e-6, 5e-324, math.MaxFloat64, 0.1, 123456789012345680000, 1e20, -0.0, 2 << 60}
	for range 5000 {
		switch r.IntN(4) {
		case 0:
			xs = append(xs, math.Float64frombits(r.Uint64()))
		case 1:
			xs = append(xs, float64(r.Int64N(1<<62))*math.Pow(10, float64(r.IntN(60)-30)))
		case 2:
			xs = append(xs, float64(r.IntN(1000000)-500000))
		default:
			xs = append(xs, r.Float64()*math.Pow(10, float64(r.IntN(600)-300)))
		}
	}
	var src strings.Builder
	src.WriteString("JSON.stringify([")
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			x = 1
		}
		if i > 0 {
			src.WriteByte(',')
		}
		src.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	}
	src.WriteString("])")
	out, err := vm.Eval(src.String(), quickjs.EvalGlobal)
	if err != nil {
		t.Fatal(err)
	}
	js, ok := out.(string)
	if !ok {
		t.Fatalf("JSON.stringify gave %T", out)
	}
	var nums []json.RawMessage
	if err := json.Unmarshal([]byte(js), &nums); err != nil {
		t.Fatal(err)
	}
	for _, num := range nums {
		var f float64
		if err := json.Unmarshal(num, &f); err != nil {
			t.Fatal(err)
		}
		if got := string(mustJSON(f)); got != string(num) {
			t.Errorf("JSON.stringify wrote %s, encoding/json writes the same double as %s", num, got)
		}
	}
}
