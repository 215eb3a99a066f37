package fe

import (
	"bufio"
	"io"
	"strings"
)

func byteReader(r io.Reader) io.ByteReader {
	if br, ok := r.(io.ByteReader); ok {
		return br
	}
	return bufio.NewReader(r)
}

// writeError prints an error the way fe_error does without a handler:
// the message, then one "=> FORM" line per traceback frame.
func writeError(w io.Writer, e *Error, trace []string) {
	var b strings.Builder
	b.WriteString("error: ")
	b.WriteString(e.Msg)
	b.WriteByte('\n')
	for _, f := range trace {
		b.WriteString("=> ")
		b.WriteString(f)
		b.WriteByte('\n')
	}
	_, _ = io.WriteString(w, b.String())
}

// RunFile runs a program in file mode, like the stock `fe FILE`: every
// datum is read and evaluated in turn and nothing is printed for results.
// On the first error it writes the message and traceback to stderr and
// returns exit status 1; otherwise it returns 0. print output goes to
// stdout. A VM with a meter keeps no call list, so its traceback is empty.
func (vm *VM) RunFile(in io.Reader, stdout, stderr io.Writer) int {
	vm.out = stdout
	src := &source{r: byteReader(in)}
	gc := vm.gcIdx
	for {
		done, err := vm.readEval(src, gc, nil)
		if err != nil {
			vm.gcIdx = gc
			writeError(stderr, err, vm.traceback())
			return 1
		}
		if done {
			return 0
		}
	}
}

// readEval reads one datum from src and evaluates it in the global
// environment, with the GC root stack reset to gc first, and hands the
// result to each (nil: nothing) while still protected, so that an error
// raised by each is caught like one raised by eval. done reports that src
// had no datum left.
func (vm *VM) readEval(src *source, gc int, each func(res Value)) (done bool, err *Error) {
	vm.gcIdx = gc
	vm.ncall = 0
	err = vm.protect(func() {
		obj := vm.read(src, 0)
		if obj == refNone {
			done = true
			return
		}
		res := vm.evalTop(obj, Nil)
		if each != nil {
			each(res)
		}
	})
	return done, err
}

// RunREPL runs the stock stdin REPL: "> " before each read, each result
// written raw followed by a newline, and errors reported as "error: MSG"
// on stderr without a traceback, after which the loop goes on. State
// changed before an error persists. It returns when the input ends.
func (vm *VM) RunREPL(in io.Reader, stdout, stderr io.Writer) {
	vm.out = stdout
	src := &source{r: byteReader(in)}
	gc := vm.gcIdx
	printResult := func(res Value) {
		vm.scratch = vm.writeTo(vm.scratch[:0], res, false)
		vm.scratch = append(vm.scratch, '\n')
		vm.emit(vm.scratch)
	}
	for {
		vm.gcIdx = gc
		vm.emit([]byte("> "))
		done, err := vm.readEval(src, gc, printResult)
		if err != nil {
			writeError(stderr, err, nil)
			continue
		}
		if done {
			vm.gcIdx = gc
			return
		}
	}
}

// Eval reads and evaluates every datum in src in the global environment
// and returns the raw printed form of the last result ("nil" for empty
// input). It stops at the first error, which is an *Error. Bindings made
// before the error persist, as in the REPL.
func (vm *VM) Eval(src string) (string, error) {
	saved := vm.nextchr
	vm.nextchr = 0
	defer func() { vm.nextchr = saved }()
	s := &source{r: strings.NewReader(src)}
	gc := vm.gcIdx
	defer func() { vm.gcIdx = gc }()
	out := "nil"
	for {
		done, err := vm.readEval(s, gc, func(res Value) { out = vm.toString(res) })
		if err != nil {
			return "", err
		}
		if done {
			return out, nil
		}
	}
}
