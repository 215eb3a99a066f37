// Package logparse is the chat-log parser of the file-based REPL server
// specified by seed 000_8e263a46ca5a55fb (see anchorage/impl/chatlog, which
// re-exports it): request and reply headers, fences, pairing, the tail
// parse and the parse report, cited below by the anchor ids of
// features/chatlog/SPEC.md.
//
// It is a package of its own so that its fuzz targets link only what the
// parser needs: the fuzzing engine instruments every package a target
// links, and the server's network and file-system dependencies made each
// execution several times slower. It may import the standard library only.
package logparse
