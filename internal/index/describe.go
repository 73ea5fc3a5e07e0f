package index

import (
	"errors"

	"github.com/memidx/memidx/internal/coldvocab"
	"github.com/memidx/memidx/internal/hotbm25"
)

// Description is what the tier data of a view's first session holds:
// the size of its hot shard, or its cold digest. Describe fills it in
// each try of Acquire.
type Description struct {
	// View is the try described (nil before any).
	View *View
	// Shard is set for a hot shard, Digest for a cold digest; neither
	// when the session has no record or its data could not be read.
	Shard  *ShardSize
	Digest *coldvocab.Digest
}

// ShardSize is the size of a hot shard.
type ShardSize struct {
	Entries, Terms int
}

// Describe describes the tier data of v's first session: what the
// refresh built in memory, or the index's. Damaged data is reported to v
// (View.Damaged) and returned.
func (d *Description) Describe(v *View) error {
	*d = Description{View: v}
	if v.Len() == 0 || v.Record(0) == nil {
		return nil
	}
	st := v.State(0)
	rec := st.Record
	if b := st.Built(); b != nil {
		// Built by the refresh, which the index could not take.
		return d.describe(b.Hot, b.Cold)
	}
	var err error
	if rec.Tier == Hot {
		var s hotbm25.Shard
		if s, err = v.Reader().Shard(rec); err == nil {
			err = d.size(s)
		}
	} else {
		var blob []byte
		if blob, _, err = v.Reader().Digest(rec); err == nil {
			if err = d.describe(nil, blob); err == nil {
				// Stored: the record holds its identity.
				d.Digest.Identify(digestIdentity(rec))
			}
		}
	}
	if errors.Is(err, ErrDamaged) || errors.Is(err, hotbm25.ErrCorrupt) || errors.Is(err, coldvocab.ErrCorrupt) {
		v.Damaged(rec)
	}
	return err
}

// describe describes a built hot shard or a digest blob.
func (d *Description) describe(hot *hotbm25.Built, cold []byte) error {
	if hot != nil {
		s, err := hot.Open()
		if err != nil {
			return err
		}
		return d.size(s)
	}
	dg, err := coldvocab.Decode(cold)
	if err != nil {
		return err
	}
	d.Digest = dg
	return nil
}

// size sets the shard's size.
func (d *Description) size(s hotbm25.Shard) error {
	n := s.Terms().Len()
	if err := s.Err(); err != nil {
		return err
	}
	d.Shard = &ShardSize{Entries: s.Len(), Terms: n}
	return nil
}
