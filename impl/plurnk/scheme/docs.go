package scheme

// The documentation the schemes ship (Manifest.Doc): the plurnk run writes
// each as plurnk://docs/<scheme>.md (§schemes-directory).
const (
	docFile = `# file://

The project's files. A bare path (main.go, docs/a.md) is a file relative to
the project root; file:///main.go is the same file. READ shows it numbered,
EDIT writes it (with <L> a span of its lines), KILL deletes it. An EDIT of a
file that is not a member of the session, or is a view member, answers 403.
`
	docKnown = `# known://

What you have learned and want to keep: facts, plans, notes. Every run of
the session sees these entries. EDIT writes one, READ reads it, FIND lists
them, KILL drops one.
`
	docUnknown = `# unknown://

The questions still open. Write one when you find a gap, KILL it once it is
answered.
`
	docLog = `# log://

Your own log. log:///<loop>/<turn>/<seq> names one row: READ re-reads what it
returned (with <N>, the Nth line of it), OPEN and FOLD show or collapse rows
in your packet, KILL drops them.
`
	docSkill = `# skill://

Skills a client installed for you. READ them; only clients write them.
`
)
