package providers

import "github.com/redis/go-redis/v9"

// NewRedisStorageForTest returns a redisstorage.Storage on c with the key
// prefix, client quota and transaction quota given (0: the default), for
// the internal tests' Redis cases. Package redisstorage imports this one, so these tests
// cannot import it: redisstorage_test.go (package providers_test, in the
// same test binary) sets this variable in its init.
var NewRedisStorageForTest func(c redis.UniversalClient, prefix string, maxClients, maxTransactions int) TokenStorage
