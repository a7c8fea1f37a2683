package redisstore

// CachedLen is the number of copies s's cache holds (0 without one).
func (s *Store) CachedLen() int {
	if s.cache == nil {
		return 0
	}
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	return len(s.cache.m)
}

// CacheLive reports whether s's cache is subscribed and serving copies.
func (s *Store) CacheLive() bool { return s.cache != nil && s.cache.live.Load() }
