package fe

import (
	"math"
	"strconv"
)

// formatNumber renders a number as C printf("%.7g") does on the float
// widened to double, with the chosen libc's NaN text.
func (vm *VM) formatNumber(buf []byte, f float32) []byte {
	switch {
	case f != f:
		if vm.nanStyle == NaNGlibc && math.Float32bits(f)&0x80000000 != 0 {
			return append(buf, "-nan"...)
		}
		return append(buf, "nan"...)
	case math.IsInf(float64(f), 1):
		return append(buf, "inf"...)
	case math.IsInf(float64(f), -1):
		return append(buf, "-inf"...)
	}
	return strconv.AppendFloat(buf, float64(f), 'g', 7, 64)
}

// writer accumulates printer output.
type writer struct {
	buf []byte
}

func (w *writer) byte(c byte) { w.buf = append(w.buf, c) }

func (w *writer) str(s string) { w.buf = append(w.buf, s...) }

// write is write_: quoted strings when qt, and a cycle guard that fe_write
// lacks. The pairs of the lists being written (from the outermost down to
// the current one) carry the mark flag; a marked pair met again closes a
// cycle and prints as "...". Each list unmarks its pairs when it is done, so
// structure shared by two branches prints in full each time, as in fe_write.
func (vm *VM) write(w *writer, v Value, qt bool) {
	c := &vm.cells[v.index()]
	switch c.typ {
	case TNil:
		w.str("nil")

	case TNumber:
		var tmp [32]byte
		for _, b := range vm.formatNumber(tmp[:0], c.num) {
			w.byte(b)
		}

	case TPair:
		if c.mark {
			w.str("...")
			break
		}
		w.byte('(')
		first, marked := v, 0
		for {
			c := &vm.cells[v.index()]
			c.mark = true
			marked++
			vm.write(w, c.car, true)
			v = c.cdr
			if vm.typ(v) != TPair {
				break
			}
			w.byte(' ')
			if vm.cells[v.index()].mark {
				w.str("...")
				break
			}
		}
		if v != Nil && !vm.cells[v.index()].mark {
			w.str(" . ")
			vm.write(w, v, true)
		}
		w.byte(')')
		for p := first; marked > 0; marked-- {
			vm.cells[p.index()].mark = false
			p = vm.cells[p.index()].cdr
		}

	case TSymbol:
		vm.write(w, vm.cells[c.cdr.index()].car, false)

	case TString:
		if qt {
			w.byte('"')
		}
		for v != Nil {
			c := &vm.cells[v.index()]
			for _, ch := range c.s[:vm.strBytes] {
				if ch == 0 {
					break
				}
				if qt && ch == '"' {
					w.byte('\\')
				}
				w.byte(ch)
			}
			v = c.cdr
		}
		if qt {
			w.byte('"')
		}

	default:
		w.str("[" + c.typ.String() + " 0x" + strconv.FormatUint(vm.address(v), 16) + "]")
	}
}

// address is a stand-in for the C object address: the arena follows the
// context in memory.
func (vm *VM) address(v Value) uint64 {
	const base = 0x10000000
	return base + uint64(vm.model.contextBytes()) + uint64(v.index()-1)*uint64(vm.model.cellBytes())
}

// writeTo appends the printed form of v to buf (fe_write).
func (vm *VM) writeTo(buf []byte, v Value, qt bool) []byte {
	w := writer{buf: buf}
	vm.write(&w, v, qt)
	return w.buf
}

// toString returns the printed form of v (fe_tostring with room for all
// of it).
func (vm *VM) toString(v Value) string {
	w := writer{}
	vm.write(&w, v, false)
	return string(w.buf)
}

// emit writes bytes to the print output.
func (vm *VM) emit(b []byte) {
	if len(b) > 0 {
		_, _ = vm.out.Write(b)
	}
}
