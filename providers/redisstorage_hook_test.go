package providers_test

import (
	"github.com/redis/go-redis/v9"

	"github.com/mcpchain/mcp/providers"
	"github.com/mcpchain/mcp/providers/redisstorage"
)

// The internal tests' Redis cases run on the real redisstorage.Storage.
func init() {
	providers.NewRedisStorageForTest = func(c redis.UniversalClient, prefix string, maxClients, maxTransactions int) providers.TokenStorage {
		s := redisstorage.New(c, prefix)
		s.MaxClients, s.MaxTransactions = maxClients, maxTransactions
		return s
	}
}
