package dataplane

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"anchorage/features/plurnk/driver"
	"anchorage/features/plurnk/world"
	"anchorage/impl/plurnk/ops"
	"anchorage/impl/plurnk/store"

	"github.com/tidwall/gjson"
)

// The steps of this file assert what seed 0.56 states at its own level of
// detail, where an older step compares the reference's exact rendering (a
// Decision, marked so where the scenarios use it): an implementation that
// follows the seed's words but renders otherwise keeps these.

func registerSeedThens(sc world.Steps) {
	sc.Public(`^the result is a catalog whose rows are shaped \{path, seconds\?, tags\?, channels\}$`, thenCatalogShape)
	sc.Public(`^catalog row (\d+) of the result has the tags "([^"]*)"$`, thenCatalogTags)
	sc.Public(`^catalog row (\d+) of the result has (\d+) lines? in its (\w+) channel$`, thenCatalogLines)
	sc.Public(`^the action does not answer (\d+)$`, func(ctx context.Context, status int) error {
		// A matcher over content its mimetype parses is no 203, whatever
		// it selects.
		return lastIs(ctx, func(r ops.Result) error {
			if r.Status == status {
				return fmt.Errorf("the action answered %d (%s)", r.Status, r.Reason)
			}
			return nil
		})
	})
	sc.Public(`^the result carries a reason$`, func(ctx context.Context) error {
		// A 203 returns the raw content "with reason".
		return lastIs(ctx, func(r ops.Result) error {
			if strings.TrimSpace(r.Reason) == "" {
				return fmt.Errorf("the action answered %d with no reason", r.Status)
			}
			return nil
		})
	})
	sc.Public(`^the action answers 200, 204, or 203 with the raw content "((?:[^"\\]|\\.)*)" and a reason$`, thenMatcherOutcome)
	sc.Public(`^the (\w+) channel of (\S+) holds the JSON value (.+?)$`, thenChannelJSON)
}

// thenMatcherOutcome checks a well-formed matcher against the seed's table
// whichever way an implementation reads the source: a match (200), no
// match (204), or a source unparseable for its mimetype, 203 with the raw
// content (no line numbers) and a reason. Whether the source parses is the
// implementation's handler's call; any other status breaks the table.
func thenMatcherOutcome(ctx context.Context, raw string) error {
	return lastIs(ctx, func(r ops.Result) error {
		switch r.Status {
		case 200, 204:
			return nil
		case 203:
			if want := driver.Unescape(raw); r.Content != want {
				return fmt.Errorf("a 203 carries %q, want the raw content %q", r.Content, want)
			}
			if strings.TrimSpace(r.Reason) == "" {
				return fmt.Errorf("a 203 carries no reason")
			}
			return nil
		}
		return fmt.Errorf("the action answered %d (%s), want 200, 204 or 203", r.Status, r.Reason)
	})
}

// catalogRows parses the last result as FIND's catalog: a JSON array of
// objects.
func catalogRows(ctx context.Context) ([]gjson.Result, error) {
	r, err := world.Get(ctx).Last()
	if err != nil {
		return nil, err
	}
	if !gjson.Valid(r.Content) || !gjson.Parse(r.Content).IsArray() {
		return nil, fmt.Errorf("the result %q (status %d) is not a JSON array", r.Content, r.Status)
	}
	return gjson.Parse(r.Content).Array(), nil
}

// catalogRow is row n (1-based) of the last result's catalog.
func catalogRow(ctx context.Context, n int) (gjson.Result, error) {
	rows, err := catalogRows(ctx)
	if err != nil {
		return gjson.Result{}, err
	}
	if n < 1 || n > len(rows) {
		return gjson.Result{}, fmt.Errorf("the catalog has %d rows, no row %d", len(rows), n)
	}
	return rows[n-1], nil
}

// thenCatalogShape checks every row of a FIND result against the seed's
// one shape, {path, seconds?, tags?, channels: {<uri>: {mimetype, tokens,
// lines}}}: a row has a path and its channels, each keyed by the path and
// a #channel fragment; seconds and tags may be there or not.
func thenCatalogShape(ctx context.Context) error {
	rows, err := catalogRows(ctx)
	if err != nil {
		return err
	}
	for i, row := range rows {
		if err := catalogMembers(row); err != nil {
			return fmt.Errorf("catalog row %d: %w", i+1, err)
		}
		if err := catalogChannels(row); err != nil {
			return fmt.Errorf("catalog row %d: %w", i+1, err)
		}
	}
	return nil
}

// catalogMembers checks a catalog row's members: a path, its channels, and
// nothing but seconds and tags beside them.
func catalogMembers(row gjson.Result) error {
	if row.Get("path").Type != gjson.String || !row.Get("channels").IsObject() {
		return fmt.Errorf("no path or no channels: %s", row.Raw)
	}
	var bad error
	row.ForEach(func(k, v gjson.Result) bool {
		switch k.String() {
		case "path", "channels":
		case "seconds":
			if v.Type != gjson.Number {
				bad = fmt.Errorf("seconds %s is not a number", v.Raw)
			}
		case "tags":
			if !v.IsArray() {
				bad = fmt.Errorf("tags %s is not an array", v.Raw)
			}
		default:
			bad = fmt.Errorf("a member %q the shape does not have: %s", k.String(), row.Raw)
		}
		return bad == nil
	})
	return bad
}

// catalogChannels checks that a catalog row's channels are keyed
// <path>#<channel>, each with its mimetype, tokens and lines.
func catalogChannels(row gjson.Result) error {
	path := row.Get("path").String()
	var bad error
	row.Get("channels").ForEach(func(k, v gjson.Result) bool {
		if !strings.HasPrefix(k.String(), path+"#") {
			bad = fmt.Errorf("channel %q is not keyed %s#<channel>", k.String(), path)
		}
		for _, m := range []string{"mimetype", "tokens", "lines"} {
			if !v.Get(m).Exists() {
				bad = fmt.Errorf("channel %q has no %s: %s", k.String(), m, v.Raw)
			}
		}
		return bad == nil
	})
	return bad
}

// thenCatalogTags compares the tags of row n (1-based) with want,
// comma-separated ("" for none: no tags member, or an empty one).
func thenCatalogTags(ctx context.Context, n int, want string) error {
	row, err := catalogRow(ctx, n)
	if err != nil {
		return err
	}
	got := []string{}
	for _, t := range row.Get("tags").Array() {
		got = append(got, t.String())
	}
	wantList := world.SplitList(want)
	if wantList == nil {
		wantList = []string{}
	}
	if !slices.Equal(got, wantList) {
		return fmt.Errorf("catalog row %d has the tags %q, want %q", n, got, wantList)
	}
	return nil
}

// thenCatalogLines compares the line count row n gives for its channel.
func thenCatalogLines(ctx context.Context, n, lines int, channel string) error {
	row, err := catalogRow(ctx, n)
	if err != nil {
		return err
	}
	key := strings.NewReplacer(".", `\.`, "*", `\*`, "?", `\?`).Replace(row.Get("path").String() + "#" + channel)
	v := row.Get("channels." + key + ".lines")
	if !v.Exists() || v.Int() != int64(lines) {
		return fmt.Errorf("catalog row %d: the %s channel's lines are %s, want %d: %s", n, channel, v.Raw, lines, row.Raw)
	}
	return nil
}

// thenChannelJSON compares a channel's content with want as JSON values:
// what a structural EDIT made of it, whatever its layout.
func thenChannelJSON(ctx context.Context, name, t, want string) error {
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		return fmt.Errorf("the expected JSON does not parse: %w", err)
	}
	return channelIs(ctx, name, t, func(ch store.Channel) error {
		var g any
		if err := json.Unmarshal([]byte(ch.Content), &g); err != nil {
			return fmt.Errorf("the %s channel of %s is no JSON value: %q", name, t, ch.Content)
		}
		if !reflect.DeepEqual(w, g) {
			return fmt.Errorf("the %s channel of %s holds %s, want the JSON value %s", name, t, ch.Content, want)
		}
		return nil
	})
}
