/**
 * Numbered migrations, shared by both backends: the schema uses only types
 * SQLite and PostgreSQL read alike (TEXT, BIGINT, INTEGER). JSON is stored as
 * TEXT so documents round-trip byte for byte; times are epoch milliseconds.
 * Never edit a released migration: add a new one.
 */
export interface Migration {
  id: number;
  name: string;
  /** Run in order; an object gives each backend its own statement (or none). */
  statements: Array<string | { sqlite?: string; postgres?: string }>;
}

const GENESIS = '0'.repeat(64);
/** Chains of the audit log after migration 3 (AUDIT_CHAINS in core). */
const CHAINS = 64;

export const MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    name: 'initial',
    statements: [
      `CREATE TABLE il_threads (
        id TEXT PRIMARY KEY, agent TEXT NOT NULL, agent_version TEXT NOT NULL, status TEXT NOT NULL,
        message_count INTEGER NOT NULL DEFAULT 0, abort_requested INTEGER NOT NULL DEFAULT 0,
        metadata TEXT NOT NULL DEFAULT '{}', lease_owner TEXT, lease_until BIGINT,
        created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)`,
      `CREATE INDEX il_threads_status ON il_threads (status, updated_at)`,
      `CREATE TABLE il_messages (
        thread_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (thread_id, seq))`,
      `CREATE TABLE il_checkpoints (
        id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, message_count INTEGER NOT NULL,
        schema_version INTEGER NOT NULL, state TEXT NOT NULL, created_at BIGINT NOT NULL)`,
      `CREATE INDEX il_checkpoints_thread ON il_checkpoints (thread_id, created_at)`,
      `CREATE TABLE il_requests (
        id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, checkpoint_id TEXT, tool_call_id TEXT,
        tool TEXT NOT NULL, args TEXT NOT NULL, action_hash TEXT NOT NULL, reason TEXT NOT NULL,
        rule_id TEXT NOT NULL, tier TEXT NOT NULL, role TEXT NOT NULL,
        approvals_required INTEGER NOT NULL, approvals_received INTEGER NOT NULL, version INTEGER NOT NULL,
        status TEXT NOT NULL, proposer TEXT NOT NULL, evidence TEXT NOT NULL, context TEXT NOT NULL, on_timeout TEXT NOT NULL,
        escalate_to TEXT, trustable INTEGER NOT NULL, resolution TEXT, parent_id TEXT, superseded_by TEXT,
        created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, resolved_at BIGINT)`,
      `CREATE INDEX il_requests_queue ON il_requests (status, role, expires_at, id)`,
      `CREATE INDEX il_requests_newest ON il_requests (status, created_at, id)`,
      `CREATE INDEX il_requests_expiry ON il_requests (status, expires_at)`,
      `CREATE INDEX il_requests_thread ON il_requests (thread_id, created_at)`,
      `CREATE TABLE il_votes (
        request_id TEXT NOT NULL, reviewer TEXT NOT NULL, type TEXT NOT NULL, version INTEGER NOT NULL,
        created_at BIGINT NOT NULL, PRIMARY KEY (request_id, reviewer))`,
      `CREATE TABLE il_trust (
        thread_id TEXT NOT NULL, tool TEXT NOT NULL, rule_id TEXT NOT NULL, reviewer TEXT NOT NULL,
        request_id TEXT NOT NULL, created_at BIGINT NOT NULL, PRIMARY KEY (thread_id, tool, rule_id))`,
      `CREATE TABLE il_executions (
        key TEXT PRIMARY KEY, request_id TEXT, thread_id TEXT, tool TEXT NOT NULL, args TEXT NOT NULL,
        action_hash TEXT NOT NULL, status TEXT NOT NULL, lease_owner TEXT, lease_until BIGINT,
        attempts INTEGER NOT NULL, result TEXT, error TEXT, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)`,
      `CREATE INDEX il_executions_tool ON il_executions (tool, status, updated_at)`,
      `CREATE INDEX il_executions_request ON il_executions (request_id)`,
      `CREATE TABLE il_jobs (
        id TEXT PRIMARY KEY, kind TEXT NOT NULL, thread_id TEXT, request_id TEXT, payload TEXT NOT NULL,
        status TEXT NOT NULL, attempts INTEGER NOT NULL, run_at BIGINT NOT NULL, lease_owner TEXT,
        lease_until BIGINT, last_error TEXT, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)`,
      `CREATE INDEX il_jobs_ready ON il_jobs (status, kind, run_at)`,
      `CREATE INDEX il_jobs_thread ON il_jobs (thread_id)`,
      `CREATE TABLE il_audit (
        seq BIGINT PRIMARY KEY, id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, actor TEXT NOT NULL,
        at BIGINT NOT NULL, thread_id TEXT, request_id TEXT, payload TEXT NOT NULL,
        prev_hash TEXT NOT NULL, hash TEXT NOT NULL)`,
      `CREATE INDEX il_audit_thread ON il_audit (thread_id, seq)`,
      `CREATE INDEX il_audit_request ON il_audit (request_id, seq)`,
      // The head is written in every appending transaction: it serializes appends
      // (one chain) and lets verification notice events deleted from the end.
      `CREATE TABLE il_audit_head (id INTEGER PRIMARY KEY, seq BIGINT NOT NULL, hash TEXT NOT NULL)`,
      `INSERT INTO il_audit_head (id, seq, hash) VALUES (1, 0, '${'0'.repeat(64)}')`,
      `CREATE TABLE il_reviewers (
        id TEXT PRIMARY KEY, name TEXT NOT NULL, roles TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE,
        revoked INTEGER NOT NULL DEFAULT 0, created_at BIGINT NOT NULL)`,
    ],
  },
  {
    id: 2,
    name: 'sessions',
    statements: [
      // Browser sessions of the web UI. Only the SHA-256 of the cookie value is kept,
      // so a copy of the database does not hand out live sessions.
      `CREATE TABLE il_sessions (
        id_hash TEXT PRIMARY KEY, reviewer_id TEXT NOT NULL,
        created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)`,
      `CREATE INDEX il_sessions_expiry ON il_sessions (expires_at)`,
    ],
  },
  {
    id: 3,
    name: 'audit chains',
    statements: [
      // The log becomes several hash chains, each with its own head row: an appender
      // locks only its chain, so audited writes of different threads no longer queue
      // behind one row. Events already written form chain 0 (closed), positions unchanged.
      `ALTER TABLE il_audit ADD COLUMN chain INTEGER NOT NULL DEFAULT 0`,
      `ALTER TABLE il_audit ADD COLUMN chain_seq BIGINT NOT NULL DEFAULT 0`,
      `UPDATE il_audit SET chain_seq = seq`,
      `CREATE TABLE il_audit_chains (chain INTEGER PRIMARY KEY, seq BIGINT NOT NULL, hash TEXT NOT NULL)`,
      `INSERT INTO il_audit_chains (chain, seq, hash) SELECT 0, seq, hash FROM il_audit_head WHERE id = 1`,
      `INSERT INTO il_audit_chains (chain, seq, hash) VALUES ${Array.from({ length: CHAINS }, (_, i) => `(${i + 1}, 0, '${GENESIS}')`).join(', ')}`,
      `DROP TABLE il_audit_head`,
      // Log positions come from a sequence on PostgreSQL (the appender takes them under its chain's
      // lock), so no appender waits for another's commit to number its events.
      { postgres: `CREATE SEQUENCE il_audit_seq` },
      { postgres: `SELECT setval('il_audit_seq', (SELECT COALESCE(MAX(seq), 0) + 1 FROM il_audit), false)` },
    ],
  },
  {
    id: 4,
    name: 'lean indexes',
    statements: [
      // Every index entry that moves is a page written on each commit. A request's status
      // changes four times (pending, authorized, executing, executed) but only the pending
      // ones are looked up by queue, expiry and newest-first: those indexes hold pending
      // requests only. Queries on them say status = 'pending' literally, so the planner can use them.
      `DROP INDEX il_requests_queue`,
      `CREATE INDEX il_requests_queue ON il_requests (role, expires_at, id) WHERE status = 'pending'`,
      `DROP INDEX il_requests_expiry`,
      `CREATE INDEX il_requests_expiry ON il_requests (expires_at) WHERE status = 'pending'`,
      `DROP INDEX il_requests_newest`,
      `CREATE INDEX il_requests_pending_newest ON il_requests (created_at, id) WHERE status = 'pending'`,
      `CREATE INDEX il_requests_created ON il_requests (created_at, id)`,
      // Nothing looks threads up by status; the entry moved on every checkpoint.
      `DROP INDEX il_threads_status`,
    ],
  },
  {
    id: 5,
    name: 'oversight',
    statements: [
      // Planted checks: synthetic requests that test reviewers; never executable, left out of other metrics.
      `ALTER TABLE il_requests ADD COLUMN planted INTEGER NOT NULL DEFAULT 0`,
      // The tier an auto or notify call ran at: with the requests, every gated call is counted (interrupt rate).
      `ALTER TABLE il_executions ADD COLUMN tier TEXT`,
      // When each reviewer first opened each card: seconds from opening to approving (the rubber-stamp signal).
      // Has the thread ever waited on a person (its tree included: a root waits while a sub-agent does)?
      // Threads that finished with 0 here completed autonomously.
      `ALTER TABLE il_threads ADD COLUMN paused INTEGER NOT NULL DEFAULT 0`,
      `UPDATE il_threads SET paused = 1 WHERE status = 'interrupted' OR EXISTS (SELECT 1 FROM il_requests r WHERE r.thread_id = il_threads.id)`,
      `CREATE TABLE il_card_opens (
        request_id TEXT NOT NULL, reviewer TEXT NOT NULL, opened_at BIGINT NOT NULL, PRIMARY KEY (request_id, reviewer))`,
    ],
  },
  {
    id: 6,
    name: 'chat identities and posted messages',
    statements: [
      // A reviewer's account in a chat tool (Slack user id): who clicked a button there.
      `CREATE TABLE il_reviewer_identities (
        provider TEXT NOT NULL, external_id TEXT NOT NULL, reviewer_id TEXT NOT NULL, created_at BIGINT NOT NULL,
        PRIMARY KEY (provider, external_id))`,
      // Messages posted about a request (a Slack channel and ts), to update once it is decided.
      // `version`: the request's version the message shows; `final`: it shows the outcome, nothing left to update.
      `CREATE TABLE il_posted_messages (
        request_id TEXT NOT NULL, provider TEXT NOT NULL, ref TEXT NOT NULL, created_at BIGINT NOT NULL,
        version INTEGER NOT NULL, final INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (request_id, provider, ref))`,
      `CREATE INDEX il_posted_messages_open ON il_posted_messages (provider) WHERE final = 0`,
    ],
  },
  {
    id: 7,
    name: 'audit append and checked writes in one statement',
    statements: [
      // PostgreSQL appends a call's events to one chain in one statement: lock the head, number and
      // hash each event (the text core/audit-chain.ts hashParts describes, so `interlock audit
      // verify` checks it as before), insert, move the head. The caller need not read the head first,
      // so the append travels with the transaction's other writes instead of costing two round trips.
      {
        postgres: `CREATE FUNCTION il_audit_append(p_chain INTEGER, p_at BIGINT, p_ids TEXT[], p_types TEXT[], p_actors TEXT[],
            p_threads TEXT[], p_requests TEXT[], p_payloads TEXT[], p_heads TEXT[], p_mids TEXT[], p_tails TEXT[])
          RETURNS TABLE (o_seq BIGINT, o_chain_seq BIGINT, o_prev_hash TEXT, o_hash TEXT)
          LANGUAGE plpgsql AS $fn$
          DECLARE
            h_seq BIGINT;
            h_hash TEXT;
          BEGIN
            SELECT c.seq, c.hash INTO h_seq, h_hash FROM il_audit_chains c WHERE c.chain = p_chain FOR UPDATE;
            IF NOT FOUND THEN
              RAISE EXCEPTION 'Audit chain % has no head row: the schema is not migrated (run migrations).', p_chain;
            END IF;
            FOR i IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
              o_prev_hash := h_hash;
              h_seq := h_seq + 1;
              o_seq := nextval('il_audit_seq');
              h_hash := encode(sha256(convert_to(p_heads[i] || h_seq::text || p_mids[i] || o_prev_hash || p_tails[i], 'UTF8')), 'hex');
              INSERT INTO il_audit (seq, id, chain, chain_seq, type, actor, at, thread_id, request_id, payload, prev_hash, hash)
                VALUES (o_seq, p_ids[i], p_chain, h_seq, p_types[i], p_actors[i], p_at, p_threads[i], p_requests[i],
                  p_payloads[i], o_prev_hash, h_hash);
              o_chain_seq := h_seq;
              o_hash := h_hash;
              RETURN NEXT;
            END LOOP;
            UPDATE il_audit_chains SET seq = h_seq, hash = h_hash WHERE chain = p_chain;
          END
          $fn$`,
      },
      // A write sent without waiting fails its transaction here when it changed another number of
      // rows than the caller knows it must (see SqlExecutor.sendExpecting).
      {
        postgres: `CREATE FUNCTION il_expect_rows(p_n BIGINT, p_expected INTEGER, p_message TEXT) RETURNS BIGINT
          LANGUAGE plpgsql AS $fn$
          BEGIN
            IF p_n <> p_expected THEN
              RAISE EXCEPTION USING MESSAGE = p_message, ERRCODE = 'P0001';
            END IF;
            RETURN p_n;
          END
          $fn$`,
      },
    ],
  },
  {
    id: 8,
    name: 'fewer pages per commit on SQLite',
    statements: [
      // The audit log keyed by its position as the rowid: `seq BIGINT PRIMARY KEY` was a separate
      // index beside the table, and the UNIQUE index on the random event id served no lookup.
      // Two fewer b-trees written per event (about 8 pages a cycle). Same columns, same rows.
      {
        sqlite: `CREATE TABLE il_audit_rebuilt (
          seq INTEGER PRIMARY KEY, id TEXT NOT NULL, type TEXT NOT NULL, actor TEXT NOT NULL,
          at BIGINT NOT NULL, thread_id TEXT, request_id TEXT, payload TEXT NOT NULL,
          prev_hash TEXT NOT NULL, hash TEXT NOT NULL, chain INTEGER NOT NULL DEFAULT 0, chain_seq BIGINT NOT NULL DEFAULT 0)`,
      },
      {
        sqlite: `INSERT INTO il_audit_rebuilt (seq, id, type, actor, at, thread_id, request_id, payload, prev_hash, hash, chain, chain_seq)
          SELECT seq, id, type, actor, at, thread_id, request_id, payload, prev_hash, hash, chain, chain_seq FROM il_audit ORDER BY seq`,
      },
      { sqlite: `DROP TABLE il_audit` },
      { sqlite: `ALTER TABLE il_audit_rebuilt RENAME TO il_audit` },
      { sqlite: `CREATE INDEX il_audit_thread ON il_audit (thread_id, seq)` },
      { sqlite: `CREATE INDEX il_audit_request ON il_audit (request_id, seq)` },
    ],
  },
  {
    id: 9,
    name: 'no unique index on audit event ids on PostgreSQL',
    statements: [
      // As migration 8 on SQLite: no lookup goes by the random event id, and its unique index was
      // one more b-tree written per event, inside the chain's lock (il_audit_append).
      { postgres: `ALTER TABLE il_audit DROP CONSTRAINT IF EXISTS il_audit_id_key` },
    ],
  },
  {
    id: 10,
    name: 'the decisions a rule allows, kept with its requests',
    statements: [
      // JSON array of decision types, or NULL for all four (every request made before this migration).
      `ALTER TABLE il_requests ADD COLUMN decisions TEXT`,
    ],
  },
  {
    id: 11,
    name: 'tool schemas listed by integrations',
    statements: [
      // An MCP gateway's upstream tools live in the gateway process; the service beside it reads their
      // input schemas here to check a reviewer's edit. JSON as TEXT, like every document.
      `CREATE TABLE il_tool_schemas (
        name TEXT PRIMARY KEY, source TEXT NOT NULL, schema TEXT NOT NULL, description TEXT,
        updated_at BIGINT NOT NULL)`,
    ],
  },
  {
    id: 12,
    name: 'claims, internal notes and reject reasons of requests',
    statements: [
      // The rule's reject reasons ({ required, choices } as JSON), kept with the request as `decisions` is;
      // NULL: a reason is optional (every request made before this migration).
      `ALTER TABLE il_requests ADD COLUMN reject_reasons TEXT`,
      // Who is looking at a request: one holder at a time, until `expires_at` unless renewed. Advisory:
      // no decision reads it. A row outlives its request's decision; readers join the pending requests.
      `CREATE TABLE il_claims (
        request_id TEXT PRIMARY KEY, reviewer TEXT NOT NULL, reviewer_name TEXT NOT NULL,
        since BIGINT NOT NULL, expires_at BIGINT NOT NULL, auto INTEGER NOT NULL)`,
      // Reviewers' internal notes on a request: never part of a decision or of anything the agent reads.
      `CREATE TABLE il_notes (
        id TEXT PRIMARY KEY, request_id TEXT NOT NULL, author TEXT NOT NULL, author_name TEXT NOT NULL,
        text TEXT NOT NULL, created_at BIGINT NOT NULL)`,
      `CREATE INDEX il_notes_request ON il_notes (request_id, created_at)`,
    ],
  },
];
