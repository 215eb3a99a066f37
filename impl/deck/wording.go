package deck

import (
	"fmt"
	"strings"
	"time"

	"anchorage/impl/fe"
	"anchorage/impl/vary"
)

// wording is every choice of the deck that seed 004 leaves open and the
// digest records as a Decision: the words, layouts, glyphs and limits an
// implementation that keeps the seed could make differently. The
// reference's own choices are referenceWording; a spec-permitted variation
// (Variations, the -vary flag, ANCHORAGE_VARY) changes some of them.
type wording struct {
	status       func(handle string, credits uint32, rep int32) string // row 0 left of the mode indicator
	banner       string                                                // row 1 of the REPL
	stage        func(n int) string                                    // the tutorial-stage indicator on row 1
	exitREPL     string                                                // the question before leaving the REPL
	refused      string                                                // what a refusal on rows 19–21 starts with
	stateReset   string                                                // a refused deck-state image, %v its reason
	watchdog     uint64                                                // cycles of one evaluation
	watchdogErr  string                                                // the error the watchdog raises
	feError      func(msg string) string                               // a Fe error at the REPL
	deckError    func(msg string) string                               // a deck error at the REPL
	historyEntry func(vm *fe.VM, expr, result fe.Value) fe.Value       // one *history* entry
	narration    time.Duration                                         // each page of a Cipher line
	pages        [4][]string                                           // each stage's Cipher line, page by page as row 22 shows it
	firstRunRow  int                                                   // the home row of the first-run prompt
	glyphs       Glyphs                                                // the structural prompt's glyphs
	docs         func(sig, doc string) string                          // a gated primitive's describe text
	gatedMsg     func(name, msg string) string                         // a gated primitive's :message, from its reference one
	coreDoc      func(doc string) string                               // a documented Fe primitive's describe text
	words        readouts
	screens      screens
	budgetError  func(e *BudgetError) string // a refused allocation or write
	budgetShort  func(e *BudgetError) string // the same as a row-22 readout
}

// readouts are the transient texts of row 22 (and the mission and editor
// results shown there).
type readouts struct {
	noChild, endOfList, nothingToDelete, deleted, cannotInsert, notAToken string
	nothingToGrab, grabbed, nothingToEval, historyFull, flashFailed       string
	resultIsAtom, bufferFull, literal, palette                            string
	cycles                                                                func(n uint64) string
	atom                                                                  func(kind string) string
	cell                                                                  func(kind, text string) string
	result                                                                func(text string) string // an editor or mission result
}

// screens are the texts of the screens around the REPL: the editor, the
// cartridge and mission screens and the home and browser action bars.
type screens struct {
	homeBanner, homeAction, browserAction, editorBanner, editorAction string
	cartAction, missionAction                                         string
	cartBanner                                                        func(name string, kb int) string
	missionBanner                                                     func(name string, kb int) string
}

// Glyphs are the CP437 bytes the structural prompt is drawn with.
type Glyphs struct {
	Open, Close, Cursor, Left, Block byte
	Indent                           int // columns per level of the cursor's depth
}

// ReferenceGlyphs are the reference's prompt glyphs: « » ► ◄ █, two
// columns of indentation per level.
func ReferenceGlyphs() Glyphs {
	return Glyphs{Open: GlyphOpen, Close: GlyphClose, Cursor: GlyphCursor, Left: GlyphLeft, Block: GlyphBlock, Indent: 2}
}

// wordingFor returns the deck's wording with the spec-permitted variations
// of set: each choice is the reference's own unless its variation is in
// force. Every switch is a vary.Choose, so that no code of the deck decides
// whether a variation applies (a mutant that turned one on would keep the
// spec, and no assertion could reject it).
func wordingFor(set vary.Set) wording {
	return wording{
		status: vary.Choose(set, "status",
			func(h string, cr uint32, rep int32) string { return fmt.Sprintf(" %s  CR %d  REP %d", h, cr, rep) },
			func(h string, cr uint32, rep int32) string { return fmt.Sprintf("%s · %d cr · rep %d", h, cr, rep) }),
		banner: vary.Choose(set, "banner", "KINOSHITA DEV REPL ─ Fe VM v1.0", "KINOSHITA DEV REPL - Fe VM v1.4"),
		stage: vary.Choose(set, "stage",
			func(n int) string { return fmt.Sprintf("TUTORIAL %d/4", n) },
			func(n int) string { return fmt.Sprintf("STAGE %d OF 4", n) }),
		exitREPL: vary.Choose(set, "exit-prompt",
			"EXIT REPL? HISTORY WILL BE SAVED. (EVAL=YES, BACK=CANCEL)",
			"SAVE HISTORY AND LEAVE THE REPL? EVAL YES / BACK NO"),
		refused:    vary.Choose(set, "refusals", "REFUSED: ", "DENIED - "),
		stateReset: vary.Choose(set, "refusals", "%v; the deck starts as a new deck", "new deck: the saved state was refused (%v)"),
		budgetError: vary.Choose(set, "refusals",
			func(e *BudgetError) string {
				return fmt.Sprintf("sram: %s: %d bytes refused: %s (budget %s, %d bytes free)", e.Consumer, e.Size, e.Rule, e.Budget, e.Free)
			},
			func(e *BudgetError) string {
				return fmt.Sprintf("memory: %d bytes for %s denied, %s; %d bytes free, budget %s", e.Size, e.Consumer, e.Rule, e.Free, e.Budget)
			}),
		budgetShort: vary.Choose(set, "refusals",
			func(e *BudgetError) string {
				return fmt.Sprintf("%s %d bytes refused: budget %s, %d free", e.Consumer, e.Size, e.Budget, e.Free)
			},
			func(e *BudgetError) string {
				return fmt.Sprintf("%s full (%d of %s asked, %d free)", e.Consumer, e.Size, e.Budget, e.Free)
			}),
		watchdog: vary.Choose[uint64](set, "watchdog", DefaultWatchdog, 45_000_000),
		watchdogErr: vary.Choose(set, "watchdog-error",
			fmt.Sprintf("(error watchdog :message %s)", quoteString(ErrWatchdog.Error())),
			`(error cycle-budget :message "evaluation stopped: it ran past its cycle budget")`),
		feError: vary.Choose(set, "fe-errors",
			func(msg string) string { return fmt.Sprintf("(error fe-error :message %s)", quoteString(msg)) },
			func(msg string) string { return fmt.Sprintf("(error vm-error :message %s)", quoteString("fe: "+msg)) }),
		deckError: vary.Choose(set, "fe-errors",
			func(msg string) string { return fmt.Sprintf("(error deck :message %s)", quoteString(msg)) },
			func(msg string) string { return fmt.Sprintf("(error runtime :message %s)", quoteString(msg)) }),
		historyEntry: vary.Choose(set, "history-entry",
			func(vm *fe.VM, expr, result fe.Value) fe.Value { return vm.Cons(expr, result) },
			func(vm *fe.VM, expr, result fe.Value) fe.Value { return vm.List(expr, result) }),
		narration: vary.Choose(set, "narration", NarrationTime, 5*time.Second),
		pages: vary.Choose(set, "narration", [4][]string{
			{"Every list begins with a head and continues with a tail.", "Press EVAL to see the first number."},
			{"Quote preserves a form. Eval executes one. Observe."},
			{"A lambda is an unnamed function. Apply it."},
			{"You have the grammar. The rest is yours. Try (get-credits)."},
		}, [4][]string{
			{"Every list begins with a head and continues with a tail. Press EVAL to see", "the first number."},
			{"Quote preserves a form. Eval executes one. Observe."},
			{"A lambda is an unnamed function. Apply it."},
			{"You have the grammar. The rest is yours. Try (get-credits)."},
		}),
		firstRunRow: vary.Choose(set, "first-run-row", 12, 10),
		glyphs: vary.Choose(set, "glyphs", ReferenceGlyphs(),
			Glyphs{Open: '[', Close: ']', Cursor: 0x1A, Left: 0x1B, Block: 0xDD, Indent: 1}),
		docs: vary.Choose(set, "docs",
			func(sig, doc string) string { return sig + " → error outside a mission. " + doc },
			func(sig, doc string) string { return sig + ": " + doc + " (gated: raises outside a mission)" }),
		coreDoc: vary.Choose(set, "docs",
			func(doc string) string { return doc },
			func(doc string) string { return "doc: " + doc }),
		gatedMsg: vary.Choose(set, "gated-messages",
			func(_, msg string) string { return msg },
			rewordGated),
		words:   vary.Choose(set, "readouts", referenceReadouts(), variedReadouts()),
		screens: vary.Choose(set, "screens", referenceScreens(), variedScreens()),
	}
}

func referenceReadouts() readouts {
	return readouts{
		noChild: "NO CHILD", endOfList: "END OF LIST", nothingToDelete: "NOTHING TO DELETE", deleted: "DELETED",
		cannotInsert: "CANNOT INSERT HERE", notAToken: "NOT A TOKEN", nothingToGrab: "NOTHING TO GRAB",
		grabbed: "GRABBED INTO *history*", nothingToEval: "NOTHING TO EVAL", historyFull: "HISTORY NOT UPDATED: ARENA FULL",
		flashFailed: "FLASH WRITE FAILED: HISTORY NOT SAVED", resultIsAtom: "RESULT IS AN ATOM", bufferFull: "BUFFER FULL: ",
		literal: "LITERAL ", palette: "CONS",
		cycles: func(n uint64) string { return fmt.Sprintf("%d CYCLES", n) },
		atom:   func(kind string) string { return kind },
		cell:   func(kind, text string) string { return fmt.Sprintf("CELL %s: %s", kind, text) },
		result: func(text string) string { return "=> " + text },
	}
}

func variedReadouts() readouts {
	return readouts{
		noChild: "NO FIRST CHILD", endOfList: "NO NEXT SIBLING", nothingToDelete: "EMPTY PROMPT", deleted: "CUT TO CLIPBOARD",
		cannotInsert: "NO PLACE FOR A TOKEN", notAToken: "BAD TOKEN", nothingToGrab: "EMPTY PROMPT",
		grabbed: "SUBTREE KEPT IN HISTORY", nothingToEval: "EMPTY PROMPT", historyFull: "ARENA FULL: HISTORY UNCHANGED",
		flashFailed: "HISTORY NOT SAVED: FLASH ERROR", resultIsAtom: "ATOM: NOTHING INSIDE", bufferFull: "EDIT UNDONE: ",
		literal: "ENTRY ", palette: "PICK",
		cycles: func(n uint64) string { return fmt.Sprintf("cycles: %d", n) },
		atom:   func(kind string) string { return "TYPE " + kind },
		cell:   func(kind, text string) string { return fmt.Sprintf("%s %s", kind, text) },
		result: func(text string) string { return "RESULT " + text },
	}
}

func referenceScreens() screens {
	return screens{
		homeBanner: "KINOSHITA DECK ─ nOSh FIRMWARE", homeAction: "CDR next · EVAL select",
		browserAction: "CDR next · EVAL apply · BACK home", editorBanner: "nEMACS ─ STRUCTURAL EDITOR",
		editorAction: "CAR descend · CDR sibling · CONS palette · EVAL run form · BACK exit",
		cartAction:   "BACK eject", missionAction: "BACK end phase",
		cartBanner: func(name string, kb int) string { return fmt.Sprintf("CARTRIDGE %s ─ %d KB ARENA", name, kb) },
		missionBanner: func(name string, kb int) string {
			return fmt.Sprintf("CARTRIDGE %s ─ MISSION PHASE ─ %d KB SUB-ARENA", name, kb)
		},
	}
}

func variedScreens() screens {
	return screens{
		homeBanner: "nOSh ─ BARE DECK TERMINAL", homeAction: "CDR move · EVAL open", browserAction: "CDR move · EVAL do · BACK leave",
		editorBanner: "nEmacs", editorAction: "CAR in · CDR next · CONS insert · EVAL evaluate · BACK leave",
		cartAction: "BACK pull out", missionAction: "BACK leave phase",
		cartBanner: func(name string, kb int) string { return fmt.Sprintf("%s (%d KB)", strings.ToUpper(name), kb) },
		missionBanner: func(name string, kb int) string {
			return fmt.Sprintf("%s: scripted mission, %d KB", strings.ToUpper(name), kb)
		},
	}
}

// rewordGated is the gated-messages variation's :message of a gated
// primitive: the deck-state writes keep credit-add's, the seed's own words.
func rewordGated(name, msg string) string {
	if msg == msgDeckWrite {
		return msg
	}
	return "Not available outside a mission: " + name + "."
}

// Variations lists the deck's spec-permitted variations: each makes a
// choice seed 004 leaves open differently from the reference
// (wordingFor switches them).
func Variations() []vary.Variation {
	return []vary.Variation{
		{Name: "status", What: "row 0 labels and spacing: NEO · 1200 cr · rep 7",
			Permit: "seed 004, UI zones: row 0 carries the handle, the credits, the reputation and REPL in the mode slot; it gives no labels, order or spacing"},
		{Name: "banner", What: "row 1 reads KINOSHITA DEV REPL - Fe VM v1.4",
			Permit: "seed 004, UI zones, Banner: the banner names the Dev REPL and the Fe VM with a placeholder version vX.Y, joined by an em dash CP437 does not have"},
		{Name: "stage", What: "the tutorial-stage indicator reads STAGE 1 OF 4",
			Permit: "seed 004, UI zones, Banner: the banner also shows the tutorial stage while it runs, in no given form"},
		{Name: "exit-prompt", What: "the question before leaving the REPL is reworded",
			Permit: "seed 004, Input grammar (BACK) and Teardown: leaving asks for confirmation when history has unsaved entries, in no given words"},
		{Name: "refusals", What: "the allocator's refusals and a refused deck-state image are reworded",
			Permit: "seed 004, Memory orchestration: the budget table and the mutual exclusion rule say what is refused, not how a refusal reads"},
		{Name: "watchdog", What: "one evaluation's cycle budget is 45,000,000 cycles (300 ms)",
			Permit: "seed 004 names no watchdog and no budget; §deck-watchdog only says an evaluation over its budget is stopped"},
		{Name: "watchdog-error", What: "the watchdog raises (error cycle-budget :message \"…\")",
			Permit: "seed 004 names no watchdog error: §deck-watchdog asks for a Lisp error"},
		{Name: "history-entry", What: "a *history* entry is the list (expression \"result\")",
			Permit: "seed 004, Owned surfaces: *history* is a cons list of the last 32 expressions with their printed results; an entry's shape is not given"},
		{Name: "readouts", What: "row 22's readouts (cycles, type, cell, palette, literal entry, errors) are reworded",
			Permit: "seed 004, UI zones and Input grammar: row 22 carries transient readouts; only the type names ATOM shows are given"},
		{Name: "fe-errors", What: "a Fe error reads (error vm-error :message \"fe: …\")",
			Permit: "seed 004 shows only the gated primitives' error; how another Lisp error reads at the REPL is not given"},
		{Name: "narration", What: "each page of a Cipher line shows 5 s and a long line is cut at a blank",
			Permit: "seed 004, Tutorial mode: Cipher's line shows transiently on row 22 before the prompt; how long, and how a line too long for the row is cut, is not given"},
		{Name: "docs", What: "describe's documentation is reworded",
			Permit: "seed 004, FFI surface: describe shows a primitive's signature and documentation, in no given words"},
		{Name: "gated-messages", What: "the :message of the gated primitives other than the deck-state writes is reworded",
			Permit: "seed 004, FFI surface: the structured error is given with credit-add's message only"},
		{Name: "glyphs", What: "the prompt is drawn with [ ] brackets, → cursor, ▌ empty cursor, one column of indentation",
			Permit: "seed 004, UI zones, Prompt line: structure is drawn with indentation and bracket glyphs, never parentheses, plus a cursor; which glyphs and how much indentation is not given"},
		{Name: "screens", What: "the home, browser, editor, cartridge and mission screens' banners and action bars are reworded",
			Permit: "seed 004 gives the REPL's banner and action bar only; the other screens are not its subject"},
		{Name: "first-run-row", What: "the first-run prompt shows on row 10",
			Permit: "seed 004, Tutorial first-boot flow: the home screen shows the first-run prompt once; its row is not given"},
	}
}
