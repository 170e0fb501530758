/** A reviewer's claim on a request: "Dana is looking at this since 14:02" (src/store/sql/claims.ts). */
export interface ClaimRow {
  requestId: string;
  reviewer: string;
  /** The holder's name when they claimed, for other reviewers' screens. */
  reviewerName: string;
  /** When the holder first claimed it (kept while they renew). */
  since: number;
  /** When it lapses unless renewed. */
  expiresAt: number;
  /** Taken by opening the card, not by the Claim button. */
  auto: boolean;
}

/** Claims: who is looking at a request, advisory and timed (src/store/sql/claims.ts). */
export interface ClaimStoreOps {
  /**
   * Claim a request for `c.reviewer` until `c.expiresAt` (`c.since` is now): taken when it is free,
   * lapsed or already theirs (renewed, keeping its `since`); someone else's live claim only with
   * `takeOver`. Returns the claim that holds afterwards, and whether it is the caller's.
   */
  putClaim(c: ClaimRow, takeOver: boolean): Promise<{ claimed: boolean; claim: ClaimRow }>;
  /** Give back `reviewer`'s claim; false when they held none. */
  deleteClaim(requestId: string, reviewer: string): Promise<boolean>;
  /** The live claim on a pending request, if any. */
  getClaim(requestId: string, now: number): Promise<ClaimRow | undefined>;
  /** Live claims on pending requests (of `roles` only, when given), oldest first, at most 1000, with the request's role. */
  listClaims(now: number, roles?: readonly string[]): Promise<Array<ClaimRow & { role: string }>>;
}

/** A reviewer's internal note on a request: for reviewers only, never sent to the agent (src/store/sql/notes.ts). */
export interface NoteRow {
  id: string;
  requestId: string;
  author: string;
  authorName: string;
  text: string;
  createdAt: number;
}

/** Internal notes on requests (src/store/sql/notes.ts). */
export interface NoteStoreOps {
  insertNote(n: NoteRow): Promise<void>;
  /** A request's notes, oldest first (at most 500). */
  listNotes(requestId: string): Promise<NoteRow[]>;
}
