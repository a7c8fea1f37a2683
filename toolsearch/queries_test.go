package toolsearch

import (
	"encoding/json"
	"os"
)

// The retrieval query set (testdata/queries.json): requests a user would make of a model that
// holds Discord's (242 operations) or Blockfrost's (129) API as tools,
// each with the one operation that serves it.
//
// How they were written: for each operation picked, its method, path,
// parameters and (Blockfrost) summary and description were read to learn
// what it is for; then the request was written the way a user asks for
// that, in the user's words rather than the API's: "kick this person out
// of my server", not "delete guild member"; "the most recent block", not
// "latest block". No request copies words from the operation's summary,
// except the domain's own nouns that a user has no other word for
// (channel, message, role, emoji, webhook, thread; pool, epoch,
// transaction, address, token). Discord's document has no summaries, so
// its tools are found by their names and argument names alone; the
// requests avoid the operation IDs' verbs where a user would say it
// otherwise (kick, block, erase, post). The set was written once, before
// the ranking was tuned, and is kept as it was; a request the search
// misses stays in the set.

type query struct {
	Corpus  string `json:"corpus"`  // "discord" or "blockfrost"
	Request string `json:"request"` // what the user asks
	Want    string `json:"want"`    // the tool that serves it
}

// querySet is testdata/queries.json, which perf/bleve-compare reads too.
var querySet = func() []query {
	b, err := os.ReadFile("testdata/queries.json")
	if err != nil {
		panic(err)
	}
	var qs []query
	if err := json.Unmarshal(b, &qs); err != nil {
		panic(err)
	}
	return qs
}()
