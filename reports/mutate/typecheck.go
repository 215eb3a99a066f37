package mutate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Checker type-checks a package with one file replaced, in a few
// milliseconds, against the export data of its dependencies — so a mutant
// that cannot compile (a variable left unused by a deleted call, '-' on
// strings) is known before a test binary is built for it.
type Checker struct {
	exports map[string]string   // import path → export data file
	files   map[string][]string // package directory → its Go files (absolute)
	paths   map[string]string   // package directory → import path
}

// NewChecker lists the packages of dirs (module-relative, under root) and
// their dependencies with `go list -export`, which builds what is missing.
func NewChecker(root string, dirs []string) (*Checker, error) {
	args := []string{"list", "-e", "-export", "-deps", "-json=ImportPath,Dir,GoFiles,Export"}
	for _, d := range dirs {
		args = append(args, "./"+d)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go list -export: %v: %s", err, errb.String())
	}
	c := &Checker{exports: map[string]string{}, files: map[string][]string{}, paths: map[string]string{}}
	dec := json.NewDecoder(&out)
	for {
		var p struct {
			ImportPath, Dir, Export string
			GoFiles                 []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list -export: %w", err)
		}
		c.exports[p.ImportPath] = p.Export
		c.paths[p.Dir] = p.ImportPath
		for _, f := range p.GoFiles {
			c.files[p.Dir] = append(c.files[p.Dir], filepath.Join(p.Dir, f))
		}
	}
	return c, nil
}

// Check type-checks the package holding file (absolute) with src in its
// place, and returns the first error.
func (c *Checker) Check(file string, src []byte) error {
	dir := filepath.Dir(file)
	names, ok := c.files[dir]
	if !ok {
		return fmt.Errorf("typecheck: %s is not in a listed package", dir)
	}
	fset := token.NewFileSet()
	var parsed []*ast.File
	found := false
	for _, name := range names {
		var f *ast.File
		var err error
		if name == file {
			found = true
			f, err = parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		} else {
			f, err = parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		}
		if err != nil {
			return err
		}
		parsed = append(parsed, f)
	}
	if !found {
		return fmt.Errorf("typecheck: %s is not a file of its package's build", file)
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		exp := c.exports[path]
		if exp == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exp)
	})
	var first error
	conf := types.Config{Importer: imp, Error: func(err error) {
		if first == nil {
			first = err
		}
	}}
	_, _ = conf.Check(c.paths[dir], fset, parsed, nil)
	if first != nil && strings.Contains(first.Error(), "could not import") {
		return nil // an importer problem says nothing of the mutant: let the compiler judge
	}
	return first
}
