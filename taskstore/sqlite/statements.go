package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// statements are a Store's prepared statements: SQLite compiles each once
// per connection instead of once per call.
type statements struct {
	// On the read pool.
	get, page, expired, leased *sql.Stmt
	// On the writer, used inside write transactions.
	getForUpdate, exists, countPrincipal, countTotal *sql.Stmt
	insert, update, addInput, answer, remove         *sql.Stmt
	removeExpired, removeLongExpired, renewLeases    *sql.Stmt
}

// prepare compiles the statements on the read pool r and the writer w.
func prepare(ctx context.Context, r, w *sql.DB) (*statements, error) {
	st := &statements{}
	var errs []error
	prep := func(db *sql.DB, query string) *sql.Stmt {
		s, err := db.PrepareContext(ctx, query)
		errs = append(errs, err)
		return s
	}
	st.get = prep(r, selectByID)
	st.page = prep(r, selectPage)
	st.expired = prep(r, `SELECT id FROM weft_tasks
		WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?`)
	st.leased = prep(r, `SELECT id FROM weft_tasks
		WHERE unfinished = 1 AND owner <> '' AND lease_expires_at IS NOT NULL AND lease_expires_at <= ?
		ORDER BY lease_expires_at LIMIT ?`)
	st.getForUpdate = prep(w, selectByID)
	st.exists = prep(w, `SELECT count(*) FROM weft_tasks WHERE id = ?`)
	st.countPrincipal = prep(w, `SELECT count(*) FROM (SELECT 1 FROM weft_tasks WHERE principal = ? AND unfinished = 1 LIMIT ?)`)
	st.countTotal = prep(w, `SELECT count(*) FROM (SELECT 1 FROM weft_tasks WHERE unfinished = 1 LIMIT ?)`)
	st.insert = prep(w, insertTask)
	st.update = prep(w, updateTask)
	st.addInput = prep(w, `INSERT INTO weft_task_inputs (task_seq, pos, key, request, response) VALUES (?, ?, ?, ?, ?)`)
	st.answer = prep(w, `UPDATE weft_task_inputs SET response = ? WHERE task_seq = ? AND pos = ?`)
	st.remove = prep(w, `DELETE FROM weft_tasks WHERE id = ?`)
	st.removeExpired = prep(w, `DELETE FROM weft_tasks WHERE seq IN (SELECT seq FROM weft_tasks
		WHERE expires_at IS NOT NULL AND expires_at <= ? AND unfinished = 0 ORDER BY expires_at LIMIT ?)
		RETURNING id, principal, method, name, status`)
	st.removeLongExpired = prep(w, `DELETE FROM weft_tasks WHERE seq IN (SELECT seq FROM weft_tasks
		WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT 2)`)
	st.renewLeases = prep(w, renewLeases)
	if err := errors.Join(errs...); err != nil {
		st.close()
		return nil, fmt.Errorf("preparing statements: %w", err)
	}
	return st, nil
}

// close releases the statements that were prepared.
func (st *statements) close() {
	for _, s := range []*sql.Stmt{st.get, st.page, st.expired, st.leased, st.getForUpdate, st.exists,
		st.countPrincipal, st.countTotal, st.insert, st.update, st.addInput, st.answer, st.remove,
		st.removeExpired, st.removeLongExpired, st.renewLeases} {
		if s != nil {
			s.Close()
		}
	}
}
