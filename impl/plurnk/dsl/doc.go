// Package dsl parses and prints the plurnk statement language as the
// plurnk-service 0.56 release consumes it (grammar 0.74.20): heredoc-style
// statements `<<OP[signal](target)<scope>:body:OP` emitted by a model, several
// per emission, with a PLAN-first turn shape ending in one disposition SEND.
//
// What it holds:
//
//   - Parse: one model emission → statements, prose between them, and parse
//     errors as values (content-offset line and column, snippet with caret).
//   - Format: the canonical printer; for every well-formed statement (the
//     tests' Validate says which), Parse(Format(s)) yields s again (offsets
//     aside).
//   - CheckTurn: the turn-shape rules (PLAN first, one terminal SEND, nothing
//     after it, the max-commands cap) reported as typed violations.
//   - FoldTarget: the address folding of registered schemes
//     (known://x ≡ known:///x ≡ /x) and relative-path resolution.
//   - ClassifyMatcher: the dialect of a FIND/READ/OPEN/FOLD body.
//
// The grammar decisions taken where the sources disagree are listed in
// GRAMMAR.md next to this file.
//
// It imports only the standard library.
package dsl
