package ops

import (
	"fmt"
	"strings"
	"testing"

	"anchorage/golden"
	"github.com/spf13/afero"
)

// The goldens under golden/plurnk/reads/ show READ and FIND results the way
// the model gets them back: each statement, then per log row it recorded
// the status line (status, mimetype, row coordinate, open or folded) and
// the result under a heredoc fence named by its address
// (`<<known:///a.md:…:known:///a.md`, a non-default channel as `#name`),
// or the reason when there is no content. Regenerate with `make golden`
// and read the diff before committing it.

type readCase struct {
	name    string
	entries [][2]string // target, content, written by a client before the run
	files   [][2]string // workspace path, content
	emit    []string
}

func renderTranscript(f *fixture, t *testing.T, c readCase) string {
	var b strings.Builder
	for _, src := range c.emit {
		res := f.do(t, src)
		fmt.Fprintf(&b, "%s\n", src)
		rows := res.Rows
		items := res.Items
		if len(items) == 0 {
			items = []Result{res}
		}
		for i, it := range items {
			row := "no row"
			if i < len(rows) {
				state := "folded"
				if rows[i].Expanded {
					state = "open"
				}
				row = fmt.Sprintf("log:///%s (%s)", rows[i].Coord(), state)
			}
			fmt.Fprintf(&b, "→ %d", it.Status)
			if it.Mimetype != "" {
				fmt.Fprintf(&b, " %s", it.Mimetype)
			}
			fmt.Fprintf(&b, " · %s\n", row)
			if it.Reason != "" {
				fmt.Fprintf(&b, "  reason: %s\n", it.Reason)
			}
			if it.Content != "" {
				content := it.Content
				if !strings.HasSuffix(content, "\n") {
					content += "\n"
				}
				fmt.Fprintf(&b, "<<%s:%s:%s\n", it.Target, content, it.Target)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestReadGoldens(t *testing.T) {
	todo := "# Plan\nTODO call Ann\ndone: mail\nTODO pay rent\n"
	cases := []readCase{
		{
			name:    "read-content",
			entries: [][2]string{{"known:///notes.md", "# Notes\n- buy milk\n- call Ann\n"}, {"known:///notes.md#symbols", `["milk"]`}},
			emit: []string{
				"<<READ(known:///notes.md)::READ",
				"<<READ(known:///notes.md)<2>::READ",
				"<<READ(known:///notes.md)<2,-1>::READ",
				"<<READ(known:///notes.md#symbols)::READ",
				"<<READ(known:///notes.md)<7>::READ",
				"<<READ(known:///absent.md)::READ",
			},
		},
		{
			name:    "matcher-glob-regex",
			entries: [][2]string{{"known:///todo.md", todo}},
			emit: []string{
				"<<READ(known:///todo.md):TODO*:READ",
				"<<READ(known:///todo.md):*a*:READ",
				"<<READ(known:///todo.md):/^todo/i:READ",
				"<<READ(known:///todo.md)<3,4>:/TODO/:READ",
				"<<READ(known:///todo.md):/Ann\\ndone/:READ",
				"<<READ(known:///todo.md):/nothing/:READ",
				"<<READ(known:///todo.md):/(?<=TODO) pay/:READ",
			},
		},
		{
			name:    "matcher-jsonpath",
			entries: [][2]string{{"known:///config.json", configJSON}},
			files:   [][2]string{{"broken.json", `{"host": `}},
			emit: []string{
				"<<READ(known:///config.json):$.port:READ",
				"<<READ(known:///config.json):$..port:READ",
				"<<READ(known:///config.json):$.server:READ",
				"<<READ(known:///config.json):$.tags[?@ == 'c']:READ",
				"<<READ(known:///config.json):$.*:READ",
				"<<READ(known:///config.json):$.absent:READ",
				"<<READ(known:///config.json):$[:READ",
				"<<READ(broken.json):$.host:READ",
			},
		},
		{
			name:    "matcher-xpath",
			entries: [][2]string{{"known:///config.json", configJSON}, {"known:///feed.xml", feedXML}},
			files:   [][2]string{{"page.html", pageHTML}},
			emit: []string{
				"<<READ(page.html)://h1:READ",
				"<<READ(page.html)://a/@href:READ",
				"<<READ(page.html)://li:READ",
				"<<READ(known:///feed.xml)://entry[@n='2']/title:READ",
				"<<READ(known:///feed.xml)://entry:READ",
				"<<READ(known:///config.json)://server/name:READ",
				"<<READ(known:///feed.xml)://missing:READ",
				"<<READ(known:///feed.xml)://entry[:READ",
				"<<READ(known:///feed.xml)://count(entry):READ",
			},
		},
		{
			name: "read-glob-fanout",
			entries: [][2]string{
				{"known:///docs/a.md", "alpha\nTODO one\n"},
				{"known:///docs/b.md", "beta\n"},
				{"known:///docs/c.md", "TODO two\ngamma\nTODO three\n"},
				{"known:///other.md", "TODO elsewhere\n"},
			},
			emit: []string{
				"<<READ(known:///docs/*.md)::READ",
				"<<READ(known:///docs/*.md):TODO*:READ",
				"<<READ(known:///**):~todo items:READ",
				"<<READ(known:///nowhere/*)::READ",
			},
		},
		{
			name: "find-catalog",
			entries: [][2]string{
				{"known:///docs/a.md", "alpha\nTODO one\n"},
				{"known:///docs/b.md", "beta\n"},
				{"known:///docs/a.md#symbols", `["alpha"]`},
				{"known:///conf.json", `{"port": 1}`},
			},
			emit: []string{
				"<<FIND(known:///**)::FIND",
				"<<FIND(known:///docs/*):/TODO/:FIND",
				"<<FIND(known:///**):$.port:FIND",
				"<<FIND(known:///**):/zzz/:FIND",
			},
		},
		{
			name:    "read-log-rows",
			entries: [][2]string{{"known:///a.md", "one\ntwo\n"}},
			emit: []string{
				"<<READ(known:///a.md)::READ",
				"<<EDIT(known:///a.md)<2>:TWO:EDIT",
				"<<READ(log:///1/1/1)::READ",
				"<<READ(log:///1/1/2/EDIT)::READ",
				"<<READ(log:///**):/TWO/:READ",
				"<<FOLD(log:///1/1/1)::FOLD",
				"<<KILL(log:///1/1/4)::KILL",
				"<<OPEN(known:///a.md)::OPEN",
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			for _, e := range c.entries {
				setup := f.actor
				setup.Run, _ = f.actor.Session.Run("plurnk")
				setup.Writer = "client"
				src := fmt.Sprintf("<<EDIT(%s):%s:EDIT", e[0], e[1])
				if r := f.eng.Do(setup, mustParse(t, src)); r.Status >= 300 {
					t.Fatalf("setup %s: %d %s", e[0], r.Status, r.Reason)
				}
			}
			for _, fl := range c.files {
				if err := afero.WriteFile(f.fs, "/work/"+fl[0], []byte(fl[1]), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := golden.Check("plurnk/reads/"+c.name+".txt", []byte(renderTranscript(f, t, c))); err != nil {
				t.Fatal(err)
			}
		})
	}
}
