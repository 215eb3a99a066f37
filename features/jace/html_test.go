package jace

import "testing"

func TestHTMLNests(t *testing.T) {
	good := []string{
		"<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>t</title></head>\n<body>\n<main><dl><dt>a</dt><dd><ol><li>1</li></ol></dd></dl></main>\n</body>\n</html>\n",
		"<!doctype html><html><body><main><dl><dt>a<dd>b</dl></main>", // optional end tags left out
	}
	for _, doc := range good {
		if err := htmlNests(doc); err != nil {
			t.Errorf("htmlNests(%q) = %v, want nil", doc, err)
		}
	}
	bad := []string{
		"<html><body><main><dl><dt>a</dt><dd>b</dd></main></body></html>", // </dl> left out
		"<html><body><main><ol><li>1</li></ol></body></html>",             // </main> left out
		"<html><body><main>x</main></dl></body></html>",                   // closes nothing
	}
	for _, doc := range bad {
		if err := htmlNests(doc); err == nil {
			t.Errorf("htmlNests(%q) = nil, want an error", doc)
		}
	}
}
