// Package fe implements the Fe Lisp language (rxi/fe version 1.0) as a Go
// virtual machine whose observable behaviour matches the C interpreter on the
// differential corpus in impl/fe/testdata/corpus: same printed output, same error
// texts and tracebacks, and the same points of "out of memory" and
// "gc stack overflow" under the 32-bit cell model (8-byte cells, the
// 1068-byte context counted inside the arena, 3 string bytes per cell, a
// 256-entry GC root stack, collection only when the free list is empty).
//
// The arena is a slice of cells addressed by index, so cell accounting is
// exact rather than approximated. The VM is a plain struct; there is no
// package state. Evaluation errors unwind with a private panic value that is
// always recovered at the API boundary (Eval, RunFile, RunREPL, New), the Go
// analogue of the C implementation's longjmp.
//
// An optional extension layer for the handheld deck's Dev REPL (eval,
// lambda, self-evaluating keywords, structured error values, describe,
// type-of, try) is enabled with WithExtensions; stock mode never sees it.
// A Meter (WithMeter) prices the interpreter events used by the deck's
// cycle model against a limit and aborts an evaluation that passes it; the
// VM applies it itself, without a call per event.
//
// Imports: the standard library only.
package fe
