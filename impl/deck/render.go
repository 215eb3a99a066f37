package deck

import (
	"bytes"
	"fmt"
)

// draw redraws the whole screen from the state, which is all it shows:
// the screen is drawn when it is looked at (Screen, Dump), not after every
// key. Rows 0 and 24 are the runtime's; rows 1–23 belong to the mode.
func (d *Deck) draw() *Screen {
	sc := &d.screen
	sc.Clear()
	d.renderStatus()
	switch d.mode {
	case ModeHome:
		d.renderHome()
	case ModeREPL:
		d.renderREPL()
	case ModeEditor:
		d.renderEditor()
	case ModeCart:
		sc.PutText(RowBanner, 0, d.words.screens.cartBanner(d.cart.Name, d.cart.Arena/KB))
		sc.PutText(RowAction, 0, d.words.screens.cartAction)
	case ModeBrowser:
		d.renderBrowser()
	case ModeMission:
		m := d.mission
		sc.PutText(RowBanner, 0, d.words.screens.missionBanner(d.cart.Name, m.Region.Bytes()/KB))
		if m.Form != nil {
			sc.PutText(RowScrollTop, 0, " > "+m.Form.String())
		}
		d.renderRule(d.words.words.result(m.Result))
		sc.PutText(RowAction, 0, d.words.screens.missionAction)
	}
	// A refusal (only ever at home or on the cartridge screen, where the
	// refused request leaves the deck), wrapped over rows 19–21; the rows
	// clip what does not fit.
	sc.PutText(19, 0, d.refused)
	sc.PutText(20, 0, d.refused[min(len(d.refused), Cols):])
	sc.PutText(21, 0, d.refused[min(len(d.refused), 2*Cols):])
	return sc
}

// refuse shows err as a refusal until the next key.
func (d *Deck) refuse(err error) { d.refused = d.words.refused + err.Error() }

// renderStatus draws row 0: handle, credits, reputation, mode indicator.
func (d *Deck) renderStatus() {
	d.screen.PutText(RowStatus, 0, d.words.status(d.state.Handle, d.state.Credits, d.state.Reputation))
	m := d.mode.String()
	d.screen.PutText(RowStatus, Cols-1-len(m), m)
}

func (d *Deck) renderRule(text string) {
	d.screen.Put(RowRule, 0, bytes.Repeat([]byte{GlyphRule}, Cols))
	if text != "" {
		d.screen.Put(RowRule, 2, append(append([]byte{' '}, EncodeCP437(text)...), ' '))
	}
}

func (d *Deck) renderHome() {
	sc := &d.screen
	sc.PutText(RowBanner, 0, d.words.screens.homeBanner)
	for i, item := range HomeItems() {
		mark := "  "
		if i == d.homeSel {
			mark = "► "
		}
		sc.PutText(3+i, 2, mark+item)
	}
	if d.modal == ModalFirstRun {
		sc.PutText(d.words.firstRunRow, (Cols-len(TextFirstRun))/2, TextFirstRun)
	}
	sc.PutText(RowAction, 0, d.words.screens.homeAction)
}

func (d *Deck) renderBrowser() {
	sc := &d.screen
	st := d.state
	sc.PutText(RowBanner, 0, "DECK STATE")
	stage := "none"
	for i, n := range TutorialNames() {
		if st.Tutorial&(1<<i) != 0 {
			stage = n
		}
	}
	sc.PutText(3, 2, fmt.Sprintf("HANDLE %s", st.Handle))
	sc.PutText(4, 2, fmt.Sprintf("CREDITS %d  REPUTATION %d", st.Credits, st.Reputation))
	sc.PutText(5, 2, "TUTORIAL "+stage)
	for i, item := range BrowserItems() {
		mark := "  "
		if i == d.browser {
			mark = "► "
		}
		sc.PutText(7+i, 2, mark+item)
	}
	sc.PutText(RowAction, 0, d.words.screens.browserAction)
}

func (d *Deck) renderREPL() {
	sc := &d.screen
	s := d.repl
	sc.PutText(RowBanner, 0, d.words.banner)
	if s.stage > 0 {
		tag := d.words.stage(s.stage)
		sc.PutText(RowBanner, Cols-1-len(tag), tag)
	}
	for i, l := range s.lines {
		gutter := byte(' ')
		if s.focus == FocusScroll && l.entry >= 0 && l.entry == s.sel {
			gutter = d.words.glyphs.Cursor
		}
		sc.Put(RowScrollTop+i, 0, append([]byte{gutter}, EncodeCP437(l.text)...))
	}
	readout := s.comp.readout
	if o, ok := s.comp.overlay(); ok {
		readout = o
	}
	switch d.modal {
	case ModalExitREPL:
		readout = d.words.exitREPL
	case ModalExitTutorial:
		readout = TextExitTutorial
	}
	prompt := s.comp.p.RenderWith(Cols, d.words.glyphs)
	d.renderRule(readout)
	sc.Put(RowPrompt, 0, prompt)
	// The cartridge question is the runtime's, asked on its action bar.
	action := TextActionREPL
	if d.modal == ModalCart {
		action = TextCartPrompt
	}
	sc.PutText(RowAction, 0, action)
}

func (d *Deck) renderEditor() {
	sc := &d.screen
	e := d.editor
	sc.PutText(RowBanner, 0, d.words.screens.editorBanner)
	sc.Put(RowScrollTop, 0, e.comp.p.RenderWith(Cols, d.words.glyphs))
	readout := e.comp.readout
	if o, ok := e.comp.overlay(); ok {
		readout = o
	}
	d.renderRule(readout)
	sc.PutText(RowAction, 0, d.words.screens.editorAction)
}
