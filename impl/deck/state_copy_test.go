package deck

import (
	"bytes"
	"testing"

	"github.com/spf13/afero"
)

// The regions of a state read from the deck, or handed to SetState, are
// the caller's: changing their bytes afterwards changes nothing in the deck.
func TestStateRegionsAreCopies(t *testing.T) {
	d, err := New(Config{Fs: afero.NewMemMapFs()})
	if err != nil {
		t.Fatal(err)
	}
	lib := []byte{1, 'k', 1, 0, '7'}
	st := d.State()
	st.Snippets = lib
	if err := d.SetState(st); err != nil {
		t.Fatal(err)
	}
	lib[0] = 0 // the caller's slice, not the deck's
	got := d.State()
	got.Snippets[0] = 0
	if s := d.State().Snippets; !bytes.Equal(s, []byte{1, 'k', 1, 0, '7'}) {
		t.Fatalf("deck's snippet region is % x after the caller changed its copies", s)
	}
	if err := d.saveSnippet("j", "8"); err != nil {
		t.Fatalf("save a snippet after the caller changed its copies: %v", err)
	}
}
