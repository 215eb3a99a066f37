package clock

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSimFiresInDeadlineOrderWithTiesInSetOrder(t *testing.T) {
	s := NewSim(time.Time{})
	var got []string
	rec := func(name string) func() { return func() { got = append(got, name+"@"+s.Since(Epoch()).String()) } }
	s.AfterFunc(3*time.Second, rec("c"))
	s.AfterFunc(1*time.Second, rec("a"))
	s.AfterFunc(3*time.Second, rec("d"))
	s.AfterFunc(2*time.Second, rec("b"))
	stopped := s.AfterFunc(2500*time.Millisecond, rec("never"))
	if !stopped.Stop() {
		t.Fatal("Stop of a pending timer reported false")
	}
	s.Advance(10 * time.Second)
	want := []string{"a@1s", "b@2s", "c@3s", "d@3s"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("firing order (-want +got):\n%s", diff)
	}
	if s.Since(Epoch()) != 10*time.Second {
		t.Fatalf("clock reads %v after Advance(10s)", s.Since(Epoch()))
	}
}

func TestSimCallbackMaySetTimers(t *testing.T) {
	s := NewSim(time.Time{})
	var at []time.Duration
	var step func()
	step = func() {
		at = append(at, s.Since(Epoch()))
		if len(at) < 3 {
			s.AfterFunc(time.Second, step)
		}
	}
	s.AfterFunc(time.Second, step)
	if err := s.RunUntilIdle(100); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second, 3 * time.Second}, at); diff != "" {
		t.Fatalf("chained callbacks (-want +got):\n%s", diff)
	}
}

func TestSimTickerAndRunUntilIdleBound(t *testing.T) {
	s := NewSim(time.Time{})
	tk := s.NewTicker(500 * time.Millisecond)
	s.Advance(1200 * time.Millisecond)
	select {
	case got := <-tk.C():
		if want := Epoch().Add(500 * time.Millisecond); !got.Equal(want) {
			t.Fatalf("first tick at %v, want %v (later ticks drop while unread)", got, want)
		}
	default:
		t.Fatal("no tick after 1.2s of a 500ms ticker")
	}
	if err := s.RunUntilIdle(10); err == nil {
		t.Fatal("RunUntilIdle returned nil with a ticker running")
	}
	tk.Stop()
	if s.Pending() != 0 {
		t.Fatalf("%d events pending after the ticker stopped", s.Pending())
	}
}

func TestSimSleepWakesWhenAdvanced(t *testing.T) {
	s := NewSim(time.Time{})
	done := make(chan time.Duration)
	go func() {
		s.Sleep(60 * time.Second)
		done <- s.Since(Epoch())
	}()
	s.BlockUntilSleepers(1)
	s.Advance(59 * time.Second)
	select {
	case <-done:
		t.Fatal("sleeper woke before its deadline")
	default:
	}
	s.Advance(time.Second)
	if got := <-done; got != 60*time.Second {
		t.Fatalf("sleeper woke at %v, want 60s", got)
	}
}

func TestSimRefusesToGoBack(t *testing.T) {
	s := NewSim(time.Time{})
	s.Advance(time.Second)
	if err := s.AdvanceTo(Epoch()); err == nil {
		t.Fatal("AdvanceTo the past succeeded")
	}
}

func TestTimerResetReschedules(t *testing.T) {
	s := NewSim(time.Time{})
	tm := s.NewTimer(time.Second)
	s.Advance(500 * time.Millisecond)
	tm.Reset(time.Second) // now due at 1.5s
	s.Advance(700 * time.Millisecond)
	select {
	case <-tm.C():
		t.Fatal("reset timer fired at its old deadline")
	default:
	}
	s.Advance(300 * time.Millisecond)
	select {
	case <-tm.C():
	default:
		t.Fatal("reset timer did not fire at its new deadline")
	}
}
