// Package deck is a simulator of the handheld deck running its Dev REPL,
// the capability specified by features/deck/SPEC.md (seed 004, anchors
// §deck-*). It models the part the digest fixes (520 KB of SRAM at 150 MHz,
// an 80×25 CP437 text screen) closely enough to check the design's promises:
//
//   - SRAM: every consumer is allocated against the budget table, and the
//     REPL, editor and cartridge arenas are mutually exclusive (sram.go).
//   - Cycles: the Fe VM's interpreter events are priced with the event-cost
//     model of the research note and advance a simulated clock (cycles.go).
//   - Screen: a fixed framebuffer of CP437 bytes; rows 0 and 24 are drawn
//     by the runtime, rows 1–23 by the capability on top (screen.go).
//   - Deck state: a flash image with a CRC; a bad image is reset, never
//     trusted (state.go).
//   - The Deck itself: a plain struct driven by events (key presses,
//     cartridge insertion, waiting), holding the home screen, the REPL
//     session, the tutorial and a minimal structural editor (deck.go,
//     repl.go, editor.go).
//
// Nothing here is global: a Deck owns its clock, file system and seed.
//
// The choices seed 004 leaves open (texts, layouts, glyphs, the watchdog's
// budget) are the deck's wording (wording.go); Config.Vary runs the deck
// with spec-permitted variations of them (Variations).
//
// Imports: the standard library, anchorage/impl/fe (the VM),
// anchorage/impl/vary (the variations), anchorage/sim/clock (time) and
// afero (the flash file system).
package deck
