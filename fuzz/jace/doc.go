// Package jace holds the fuzz target for the JACE runtime's request-body
// decoding and validation path (anchorage/impl/jace, seed
// 003_fd13fde4b5172d4e.txt: §jace-json-only, §jace-schema, §jace-max-body).
//
// FuzzDecode feeds arbitrary bytes to jace.Decoder.Decode for every JSON
// endpoint and checks that it never panics, that a refusal is a 4xx Error
// with a code and a message, and that an accepted body re-encodes to JSON
// that is accepted again and decodes to the same request.
//
// It imports anchorage/impl/jace, anchorage/impl/vary, go-cmp and the
// standard library.
package jace
