// Package plurnk holds the fuzz targets for the plurnk DSL parser
// (anchorage/impl/plurnk/dsl, plurnk-service 0.56 / grammar 0.74.20).
//
// FuzzParse feeds arbitrary emissions to dsl.Parse and checks that it never
// panics, that every result is well formed, and that every statement it
// returns prints back to itself. The seed corpus under
// testdata/fuzz/FuzzParse holds valid turns and pathological inputs.
//
// It imports anchorage/impl/plurnk/dsl, go-cmp and the standard library.
package plurnk
