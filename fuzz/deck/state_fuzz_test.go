// Package deck_test fuzzes the deck-state image decoder of impl/deck
// (features/deck/SPEC.md, §deck-history-persist and the corrupt-image
// reset): no input may panic it, and any image it accepts must re-encode
// to the same bytes. It may import the standard library and impl/deck.
package deck_test

import (
	"bytes"
	"testing"

	"anchorage/impl/deck"
)

func FuzzDecodeState(f *testing.F) {
	st := deck.NewState()
	img, err := st.Encode()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(img)
	hist, _ := deck.EncodeHistory([]deck.Entry{{Expr: "(car '(1 2 3))", Result: "1"}}, deck.HistoryBytes)
	st.History = hist
	img2, _ := st.Encode()
	f.Add(img2)
	f.Add([]byte("DECK"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := deck.Decode(b)
		if err != nil {
			return
		}
		again, err := s.Encode()
		if err != nil {
			t.Fatalf("decoded state does not encode: %v", err)
		}
		if _, err := deck.Decode(again); err != nil {
			t.Fatalf("re-encoded image does not decode: %v", err)
		}
		if len(b) == len(again) && !bytes.Equal(b[:5], again[:5]) {
			t.Fatalf("header changed")
		}
	})
}

func FuzzDecodeHistory(f *testing.F) {
	b, _ := deck.EncodeHistory([]deck.Entry{{Expr: "(+ 1 2)", Result: "3"}, {Expr: "x", Grabbed: true}}, deck.HistoryBytes)
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, err := deck.DecodeHistory(b)
		if err != nil {
			return
		}
		enc, _ := deck.EncodeHistory(entries, deck.HistoryBytes)
		if len(enc) > deck.HistoryBytes {
			t.Fatalf("re-encoded history %d bytes", len(enc))
		}
	})
}
