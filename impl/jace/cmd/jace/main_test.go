package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRunRejectsBadArguments(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"a.js", "b.js"}, "at most one module file"},
		{[]string{"/nonexistent/module.js"}, "reading module"},
		{[]string{"-timeout", "soon"}, "invalid value"},
		{[]string{"-addr", "256.0.0.1:99999"}, "listening on"},
	}
	for _, c := range cases {
		var stderr bytes.Buffer
		err := run(c.args, &stderr)
		if err == nil || !strings.Contains(err.Error()+stderr.String(), c.want) {
			t.Errorf("run(%q) = %v (stderr %q), want an error mentioning %q", c.args, err, stderr.String(), c.want)
		}
	}
}
