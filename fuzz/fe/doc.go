// Package fefuzz holds fuzz targets for the Fe VM in anchorage/impl/fe
// (spec: Fe 1.0, rxi/fe, as recorded by impl/fe/testdata/corpus). FuzzRead feeds
// arbitrary bytes to the reader and printer (as the elements of a quoted
// list); FuzzEval evaluates them in a small arena under a step budget. Both must never panic and must finish
// in bounded time. It imports only impl/fe and the standard library.
package fefuzz
