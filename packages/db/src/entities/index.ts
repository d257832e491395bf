import { BigIntType, EntitySchema, type Opt } from "@mikro-orm/core";
import { FIRST_DESTINATION_URL, ENDPOINT_ROUTING } from "./endpoint-routing.js";
import { EVENT_STATUSES, SIGNATURE_STATUSES, type CustomResponse, type DedupRule, type EventStatus, type HandshakeRule, type HeaderList, type RoutingFilter, type SignatureReason, type SignatureStatus, type VerificationRule } from "@rehook/core";

/** An endpoint's signature rule as saved (the secret never leaves the server's use cases). */
export interface StoredVerification extends VerificationRule {
  rejectInvalid: boolean;
}

export interface User {
  id: string;
  email: string;
  /** Null for an account made by single sign-on: the password form never accepts it. */
  passwordHash: string | null;
  /** Makes invite links (SIGNUP=invite): the first user, and users created with `rehook user create --admin`. */
  isAdmin: boolean;
  createdAt: Date;
}

/** Who may do what in a team, weakest first (see @rehook/core roles). */
export type StoredRole = "viewer" | "developer" | "admin" | "owner";

/** Owns endpoints (and their events), API keys, invites and chat-notification settings. */
export interface Team {
  id: string;
  name: string;
  slug: string;
  /** The user this team was made for on upgrade or sign-up (their personal team); null for teams made by hand. */
  personalOf: User | null;
  /** Made by an operator (`rehook team create`, `rehook team adopt`, or a server admin): only such a team may be OIDC_DEFAULT_TEAM, and only its admins' invite links create accounts under SIGNUP=invite. */
  madeByOperator: boolean;
  createdAt: Date;
}

export interface TeamMember {
  team: Team;
  user: User;
  role: StoredRole;
  createdAt: Date;
  /** The last request this member made in this team (dashboard, key or stream), to the minute. */
  lastActiveAt: Date | null;
}

export interface Invite {
  id: string;
  createdBy: User;
  /** The team the link adds its user to (null: a sign-up-only link made before teams). */
  team: Team | null;
  role: StoredRole | null;
  /** SHA-256 of the link's token: the token itself is shown once. */
  tokenHash: Buffer;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  usedBy: User | null;
  revokedAt: Date | null;
}

export interface Session {
  /** SHA-256 of the session token, hex: a leaked table does not leak live sessions. */
  id: string;
  user: User;
  expiresAt: Date;
}

export interface Endpoint {
  id: string;
  team: Team;
  name: string;
  slug: string;
  /** Its first destination's URL (read-only: destinations are written through their own queries). */
  destinationUrl: string | null;
  /** Its destinations at a glance (read-only; see EndpointRouting). */
  routing: Opt<EndpointRouting>;
  secret: string;
  signRequests: boolean;
  stagingHost: string | null;
  /** Forward and replay X-Forwarded-*, Forwarded and X-Real-IP (dropped by default). */
  keepProxyHeaders: boolean;
  /** Final delivery outcomes to all its destinations: its health. */
  deliveredCount: number;
  failedCount: number;
  /** How long its events are kept, in days (null: RETENTION_DAYS; 0: for ever). */
  retentionDays: number | null;
  /** What senders get back instead of the default 200 (null: the default). */
  customResponse: CustomResponse | null;
  /** The provider URL check it answers (null: none). */
  handshake: HandshakeRule | null;
  /** How it checks senders' signatures (null: it does not). */
  verification: StoredVerification | null;
  /** Counts changes of `verification` and of `dedup`: the ingress rule a capture is written under (see the capture writer). */
  verificationVersion: number;
  /** Which requests are duplicates of an earlier one (null: none are). */
  dedup: DedupRule | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface Event {
  id: string;
  endpoint: Endpoint;
  receivedAt: Date;
  method: string;
  path: string;
  query: string;
  headers: HeaderList;
  body: Buffer;
  contentType: string | null;
  sizeBytes: number;
  clientIp: string | null;
  source: string;
  eventType: string;
  status: EventStatus;
  /** What the endpoint's signature check found (null: it checks none). */
  signature: SignatureStatus | null;
  /** Why the signature is not valid (null: valid, or nothing checked). */
  signatureReason: SignatureReason | null;
  /**
   * What the sender was answered: the status and the delay before it, as the capture
   * statement decided them (null on events captured before they were recorded).
   */
  senderStatus: number | null;
  senderDelayMs: number | null;
  latencyMs: number | null;
  responseStatus: number | null;
  responseHeaders: HeaderList | null;
  responseBody: Buffer | null;
  responseTruncated: boolean;
  error: string | null;
  /** When the stored attempt started sending; completedAt is when its result was stored. */
  forwardedAt: Date | null;
  completedAt: Date | null;
  /** The first destination the event was routed to, as it was at capture (null: none matched). */
  destinationUrl: string | null;
  /** While pending: when its earliest scheduled retry is due (null: due now, or not pending). */
  nextAttemptAt: Date | null;
  /** A duplicate (status duplicate): the event whose dedup key it repeated within the window. */
  duplicateOf: string | null;
  /**
   * Being sent by the fast path with no delivery row yet (its only delivery, leased to the
   * capturing instance until fastPathLeaseExpiresAt): see the fast_path_lease migration.
   */
  fastPathDestinationId: string | null;
  fastPathLeaseExpiresAt: Date | null;
  /** The order it committed in (a sequence drawn under the capture statement's lock; null before the event_stored_order migration): see that migration. */
  storedOrder?: Opt<string> | null;
  /** The destinations whose filter the capture's filter work budget cut short (null: none). */
  filtersCutShort: string[] | null;
}

/** An audit log entry as stored (see the audit_log migration; written and read with SQL, never updated). */
export interface AuditLogRow {
  id: string;
  at: Date;
  teamId: string | null;
  actorType: "user" | "api_key" | "cli" | "system";
  actorId: string | null;
  actorName: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  targetName: string | null;
  changes: unknown;
  requestId: string | null;
  ip: string | null;
}

/** A dedup key's first event, remembered until the endpoint's window after it has passed. */
export interface DedupKey {
  endpointId: string;
  keyHash: Buffer;
  firstEventId: string;
  expiresAt: Date;
  /** Its first event's signature was checked and valid: on an endpoint that checks signatures, only such a key counts. */
  verified: boolean;
}

/**
 * Where an endpoint forwards: each destination gets the events its filter lets through, at its
 * own pace, with its own retries and circuit breaker.
 */
export interface Destination {
  id: string;
  endpoint: Endpoint;
  /** Its place among the endpoint's destinations (the lowest is the first: the endpoint's destination_url). */
  position: number;
  name: string;
  url: string;
  enabled: boolean;
  /** Which events it gets (null: all of them); see core's routing filter. */
  filter: RoutingFilter | null;
  /** At most this many deliveries start per second, across all instances (null: no limit). */
  rateLimitPerSecond: number | null;
  /** One delivery at a time, in capture order. */
  ordered: boolean;
  /** The retry policy; all three null: one attempt, no retries. */
  retryMaxAttempts: number | null;
  retryInitialDelayMs: number | null;
  retryMaxDelayMs: number | null;
  /** The circuit breaker: pause after this many consecutive failed attempts (null: never); see core's breaker.ts. */
  pauseAfterFailures: number | null;
  /** Failed attempts in a row (a delivered one sets it to 0; it stands still while paused). */
  consecutiveFailures: number;
  /** Set while the breaker holds it; its deliveries wait as pending until it is resumed. */
  forwardingPausedAt: Date | null;
  pausedReason: string | null;
  /** The rate limit's schedule: the earliest moment its next delivery may start (microseconds: slots are 1/rate apart). */
  rateNextStartAt: Date | null;
  /** A half-open breaker's one send at a time: the event whose delivery holds the slot, and until when (see the breaker_probe migration). */
  probeEventId: string | null;
  probeLeaseExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** An endpoint's destinations at a glance, read with the endpoint (a formula, not columns). */
export interface EndpointRouting {
  destinations: number;
  paused: number;
  /** The first destination's delivery settings and breaker state, as stored (snake_case, times as text). */
  first: {
    id: string;
    retry_max_attempts: number | null;
    retry_initial_delay_ms: number | null;
    retry_max_delay_ms: number | null;
    pause_after_failures: number | null;
    consecutive_failures: number;
    forwarding_paused_at: string | null;
    paused_reason: string | null;
  } | null;
  /** The first paused destination's name, reason and time, if any is paused. */
  firstPaused: { name: string; paused_reason: string | null; forwarding_paused_at: string } | null;
}

/** One event on its way to one destination: forwarding's queue. */
export interface Delivery {
  eventId: string;
  destinationId: string;
  endpointId: string;
  status: "pending" | "delivered" | "failed";
  /** Attempts claimed so far (the next attempt's number is this plus one). */
  attempts: number;
  leaseExpiresAt: Date | null;
  /** A retry is scheduled: the delivery waits as pending until then. */
  nextAttemptAt: Date | null;
  completedAt: Date | null;
  /** A failed delivery made good: by a later delivered replay to this destination, or marked by a member (see the delivery_history migration). */
  resolvedAt: Date | null;
  resolvedByReplayId: string | null;
  resolvedByUserId: string | null;
  resolutionNote: string | null;
}

/** One attempt to forward an event to a destination, whatever came of it. */
export interface DeliveryAttempt {
  id: string;
  event: Event;
  /** The destination it went to (null: made before routing, to the endpoint's first destination). */
  destinationId: string | null;
  /** 1 for the first attempt; the event's claim count when it was sent. */
  attempt: number;
  startedAt: Date;
  latencyMs: number;
  responseStatus: number | null;
  responseHeaders: HeaderList | null;
  responseBody: Buffer | null;
  responseTruncated: boolean;
  error: string | null;
  outcome: "delivered" | "failed";
}

export interface ReplayAttempt {
  id: string;
  event: Event;
  user: User | null;
  environment: string;
  destinationUrl: string;
  status: string;
  responseStatus: number | null;
  responseHeaders: HeaderList | null;
  responseBody: Buffer | null;
  responseTruncated: boolean;
  latencyMs: number | null;
  error: string | null;
  replayedAt: Date;
  /** The bulk replay this attempt belongs to, if any. */
  jobId: string | null;
  /** What was sent: method, headers and body bytes (null on older attempts and local replays). */
  requestMethod: string | null;
  requestHeaders: HeaderList | null;
  requestBody: Buffer | null;
  /** Sent with edits (edit-and-replay) rather than as the event was captured. */
  modified: boolean;
  /** The endpoint destination it went to (null: a staging, local or custom URL). */
  destinationId: string | null;
  /** A local replay's way to the developer's machine (null: not local, or recorded before this was kept). */
  localVia: "browser" | "listen" | null;
}

export interface ReplayJob {
  id: string;
  team: Team;
  createdBy: User | null;
  endpoint: Endpoint;
  environment: string;
  customUrl: string | null;
  statusFilter: string | null;
  /** running (also while handed from a stopped instance to another), finished, or interrupted (given up after repeated internal errors). */
  state: string;
  total: number;
  done: number;
  delivered: number;
  failed: number;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
  /** Keyset cursor: the last event the job went past (resumes after it). */
  afterId: string | null;
  /** Only events before this id (those that existed when the job started). */
  upTo: string | null;
  /** Which of the endpoint's destinations each event goes to (null: the URL environment). */
  target: "destination" | "matched" | "failed" | null;
  /** target 'destination': that destination. */
  destinationId: string | null;
}

/**
 * An open `rehook listen` stream that takes local replays (see the local_listeners migration):
 * the instance serving it keeps `seenAt` fresh and removes the row when the stream closes.
 */
export interface LocalListener {
  id: string;
  team: Team;
  endpoint: Endpoint;
  /** The member whose API key opened the stream: only their Local replays go to it. */
  user: User;
  keyId: string | null;
  connectedAt: Date;
  seenAt: Date;
}

/** A change to the count of an endpoint's events in one status (see the event_counts migration). */
export interface EventCount {
  id: string;
  endpointId: string;
  status: string;
  n: number;
}

/** Events captured and final outcomes of one endpoint in one minute: delta rows, folded by a job (read and written with SQL). */
export interface EventMinute {
  id: string;
  endpointId: string;
  minute: Date;
  captured: number;
  delivered: number;
  failed: number;
}

/** Delivery attempts of one endpoint in one minute whose latency fell in a histogram bucket: delta rows, folded by a job. */
export interface LatencyMinute {
  id: string;
  endpointId: string;
  minute: Date;
  bucket: number;
  n: number;
}

/** A background job (see jobs/runner.ts); read and written with SQL, described here for the schema. */
export interface Job {
  id: string;
  kind: string;
  key: string;
  payload: unknown;
  runAt: Date;
  leaseUntil: Date | null;
  attempts: number;
  again: boolean;
  lastError: string | null;
  createdAt: Date;
}

export interface ApiKey {
  id: string;
  team: Team;
  /** Who made it: its role is at most theirs, and it is revoked when they leave the team. */
  user: User;
  role: StoredRole;
  name: string;
  /** The first characters of the key, shown in lists so a user can tell keys apart. */
  prefix: string;
  /** SHA-256 of the whole key; the key itself is shown once and never stored. */
  keyHash: Buffer;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface NotificationSettings {
  team: Team;
  enabled: boolean;
  webhookUrl: string | null;
  triggers: string[];
  pausedReason: string | null;
  lastError: string | null;
  updatedAt: Date;
  /** Pacing: the next post to this URL waits until then (about one per second, or Retry-After). */
  nextPostAt: Date;
  /** Consecutive failed posts (5xx, network); reset by a success. */
  failures: number;
}

export interface NotificationOutbox {
  id: string;
  team: Team;
  eventId: string;
  trigger: string;
  createdAt: Date;
}

/** A team's alert rule (see the alert_rules migration). */
export interface AlertRule {
  id: string;
  team: Team;
  name: string;
  trigger: string;
  /** Percent, for health_low and signature_invalid_rate. */
  threshold: number | null;
  /** One endpoint, or every endpoint of the team (null). */
  endpoint: Endpoint | null;
  channel: string;
  /** A URL, or an email address. */
  target: string;
  /** The webhook channel's whsec_ signing secret. */
  secret: string | null;
  enabled: boolean;
  nextPostAt: Date;
  failures: number;
  pausedReason: string | null;
  lastResultAt: Date | null;
  lastResultOk: boolean | null;
  lastResult: string | null;
  firing: string[];
  /** A failed post's last outbox id: its retry sends exactly those rows again. */
  retryThrough: string | null;
  createdAt: Date;
}

/**
 * One send of the last hour: a test (any channel) or an email (alert or test). It outlives
 * its team and user (set null), so deleting them frees no slot of the user's or server's hour.
 */
export interface AlertSend {
  id: string;
  team: Team | null;
  /** Who pressed "Send a test" (null: an alert). */
  user: User | null;
  /** What was tested: a rule's id, or "notifications:<team id>" (the team's chat hook). */
  subject: string | null;
  test: boolean;
  email: boolean;
  sentAt: Date;
}

export interface AlertOutbox {
  id: string;
  rule: AlertRule;
  kind: string;
  eventId: string | null;
  endpointId: string | null;
  destinationId: string | null;
  detail: Record<string, unknown> | null;
  createdAt: Date;
}

const timestamp = { type: "datetime", columnType: "timestamptz(3)" } as const;
const createdAt = { ...timestamp, defaultRaw: "now()" } as const;

export const UserEntity = new EntitySchema<User>({
  name: "User",
  tableName: "users",
  properties: {
    id: { type: "uuid", primary: true },
    email: { type: "text", unique: "users_email_unique" },
    passwordHash: { type: "text", nullable: true },
    isAdmin: { type: "boolean", default: false },
    createdAt,
  },
});

export const TeamEntity = new EntitySchema<Team>({
  name: "Team",
  tableName: "teams",
  properties: {
    id: { type: "uuid", primary: true },
    name: { type: "text" },
    slug: { type: "text", unique: "teams_slug_unique" },
    personalOf: { kind: "m:1", entity: () => UserEntity, deleteRule: "set null", nullable: true, unique: "teams_personal_of_id_unique" },
    madeByOperator: { type: "boolean", default: false },
    createdAt,
  },
});

export const TeamMemberEntity = new EntitySchema<TeamMember>({
  name: "TeamMember",
  tableName: "team_members",
  properties: {
    team: { kind: "m:1", entity: () => TeamEntity, primary: true, deleteRule: "cascade" },
    user: { kind: "m:1", entity: () => UserEntity, primary: true, deleteRule: "cascade", index: "team_members_user_id_index" },
    role: { type: "text" },
    createdAt,
    lastActiveAt: { ...timestamp, nullable: true },
  },
});

/** An identity provider's subject linked to an account (single sign-on; see the sso migration). */
export interface UserIdentity {
  issuer: string;
  subject: string;
  user: User;
  /** The email it was linked by (or signed in with first). */
  email: string;
  createdAt: Date;
  lastSignInAt: Date;
}

export const UserIdentityEntity = new EntitySchema<UserIdentity>({
  name: "UserIdentity",
  tableName: "user_identities",
  properties: {
    issuer: { type: "text", primary: true },
    subject: { type: "text", primary: true },
    user: { kind: "m:1", entity: () => UserEntity, deleteRule: "cascade", index: "user_identities_user_id_index" },
    email: { type: "text" },
    createdAt,
    lastSignInAt: createdAt,
  },
});

export const InviteEntity = new EntitySchema<Invite>({
  name: "Invite",
  tableName: "invites",
  properties: {
    id: { type: "uuid", primary: true },
    createdBy: { kind: "m:1", entity: () => UserEntity, deleteRule: "cascade", index: "invites_created_by_id_index" },
    team: { kind: "m:1", entity: () => TeamEntity, deleteRule: "cascade", nullable: true, index: "invites_team_id_index" },
    role: { type: "text", nullable: true },
    tokenHash: { type: "blob", unique: "invites_token_hash_unique" },
    createdAt,
    expiresAt: { ...timestamp },
    usedAt: { ...timestamp, nullable: true },
    usedBy: { kind: "m:1", entity: () => UserEntity, deleteRule: "set null", nullable: true },
    revokedAt: { ...timestamp, nullable: true },
  },
});

export const SessionEntity = new EntitySchema<Session>({
  name: "Session",
  tableName: "sessions",
  properties: {
    id: { type: "text", primary: true },
    user: { kind: "m:1", entity: () => UserEntity, deleteRule: "cascade", index: "sessions_user_id_index" },
    expiresAt: { ...timestamp },
  },
});

export const EndpointEntity = new EntitySchema<Endpoint>({
  name: "Endpoint",
  tableName: "endpoints",
  properties: {
    id: { type: "uuid", primary: true },
    team: { kind: "m:1", entity: () => TeamEntity, deleteRule: "cascade", index: "endpoints_team_id_index" },
    name: { type: "text" },
    slug: { type: "text", unique: "endpoints_slug_unique" },
    destinationUrl: { type: "text", nullable: true, persist: false, formula: (table) => FIRST_DESTINATION_URL(table.alias) },
    routing: { type: "json", persist: false, formula: (table) => ENDPOINT_ROUTING(table.alias) },
    secret: { type: "text" },
    signRequests: { type: "boolean", default: false },
    stagingHost: { type: "text", nullable: true },
    keepProxyHeaders: { type: "boolean", default: false },
    deliveredCount: { type: new BigIntType("number"), default: 0 },
    failedCount: { type: new BigIntType("number"), default: 0 },
    retentionDays: { type: "integer", nullable: true },
    customResponse: { type: "json", columnType: "jsonb", nullable: true },
    handshake: { type: "json", columnType: "jsonb", nullable: true },
    verification: { type: "json", columnType: "jsonb", nullable: true },
    verificationVersion: { type: "integer", default: 0 },
    dedup: { type: "json", columnType: "jsonb", nullable: true },
    createdAt,
    updatedAt: { ...createdAt, onUpdate: () => new Date() },
  },
});

export const EventEntity = new EntitySchema<Event>({
  name: "Event",
  tableName: "events",
  indexes: [
    { name: "events_endpoint_id_id_index", properties: ["endpoint", "id"] },
    { name: "events_endpoint_status_index", properties: ["endpoint", "status", "id"] },
    { name: "events_endpoint_source_index", properties: ["endpoint", "source", "id"] },
    { name: "events_endpoint_event_type_index", properties: ["endpoint", "eventType", "id"] },
    {
      name: "events_endpoint_signature_index",
      expression: `create index "events_endpoint_signature_index" on "events" ("endpoint_id", "signature", "id") where "signature" is not null`,
    },
    {
      name: "events_fast_path_index",
      expression: `create index "events_fast_path_index" on "events" ("fast_path_lease_expires_at") where "fast_path_destination_id" is not null`,
    },
    {
      name: "events_endpoint_id_stored_order_index",
      expression: `create index "events_endpoint_id_stored_order_index" on "events" ("endpoint_id", "stored_order") where "stored_order" is not null`,
    },
  ],
  properties: {
    id: { type: "uuid", primary: true },
    // No foreign key: see the initial migration for why and what keeps it consistent.
    endpoint: { kind: "m:1", entity: () => EndpointEntity, createForeignKeyConstraint: false },
    receivedAt: { ...timestamp },
    method: { type: "text" },
    path: { type: "text" },
    query: { type: "text" },
    headers: { type: "json", columnType: "json" },
    body: { type: "blob" },
    contentType: { type: "text", nullable: true },
    sizeBytes: { type: "integer" },
    clientIp: { type: "text", nullable: true },
    source: { type: "text" },
    eventType: { type: "text" },
    status: { enum: true, items: () => [...EVENT_STATUSES], columnType: "text" },
    signature: { enum: true, items: () => [...SIGNATURE_STATUSES], columnType: "text", nullable: true },
    // Plain text, no check constraint: a reason added later needs no migration (see SIGNATURE_REASONS).
    signatureReason: { type: "text", nullable: true },
    senderStatus: { type: "smallint", nullable: true },
    senderDelayMs: { type: "integer", nullable: true },
    latencyMs: { type: "integer", nullable: true },
    responseStatus: { type: "integer", nullable: true },
    responseHeaders: { type: "json", columnType: "json", nullable: true },
    responseBody: { type: "blob", nullable: true },
    responseTruncated: { type: "boolean", default: false },
    error: { type: "text", nullable: true },
    forwardedAt: { ...timestamp, nullable: true },
    completedAt: { ...timestamp, nullable: true },
    destinationUrl: { type: "text", nullable: true },
    nextAttemptAt: { ...timestamp, nullable: true },
    duplicateOf: { type: "uuid", nullable: true },
    fastPathDestinationId: { type: "uuid", nullable: true },
    fastPathLeaseExpiresAt: { ...timestamp, nullable: true },
    // A sequence's default, which the schema generator reads as autoincrement (see the event_stored_order migration).
    storedOrder: { type: new BigIntType("string"), nullable: true, autoincrement: true },
    filtersCutShort: { type: "string[]", columnType: "uuid[]", nullable: true },
  },
});

export const AuditLogEntity = new EntitySchema<AuditLogRow>({
  name: "AuditLog",
  tableName: "audit_log",
  indexes: [
    { name: "audit_log_team_index", properties: ["teamId", "id"] },
    { name: "audit_log_at_index", properties: ["at"] },
  ],
  properties: {
    id: { type: "uuid", primary: true },
    at: { ...timestamp, defaultRaw: "now()" },
    teamId: { type: "uuid", nullable: true },
    actorType: { enum: true, items: () => ["user", "api_key", "cli", "system"], columnType: "text" },
    actorId: { type: "text", nullable: true },
    actorName: { type: "text", nullable: true },
    action: { type: "text" },
    targetType: { type: "text", nullable: true },
    targetId: { type: "text", nullable: true },
    targetName: { type: "text", nullable: true },
    changes: { type: "json", columnType: "jsonb", nullable: true },
    requestId: { type: "text", nullable: true },
    ip: { type: "text", nullable: true },
  },
});

export const DedupKeyEntity = new EntitySchema<DedupKey>({
  name: "DedupKey",
  tableName: "dedup_keys",
  indexes: [{ name: "dedup_keys_expires_at_index", properties: ["expiresAt"] }],
  properties: {
    endpointId: { type: "uuid", primary: true },
    keyHash: { type: "blob", primary: true },
    firstEventId: { type: "uuid" },
    expiresAt: { ...timestamp },
    verified: { type: "boolean", default: false },
  },
});

export const DestinationEntity = new EntitySchema<Destination>({
  name: "Destination",
  tableName: "destinations",
  indexes: [],
  uniques: [{ name: "destinations_endpoint_id_position_unique", properties: ["endpoint", "position"] }],
  properties: {
    id: { type: "uuid", primary: true },
    endpoint: { kind: "m:1", entity: () => EndpointEntity, deleteRule: "cascade", index: false },
    position: { type: "integer" },
    name: { type: "text" },
    url: { type: "text" },
    enabled: { type: "boolean", default: true },
    filter: { type: "json", columnType: "jsonb", nullable: true },
    rateLimitPerSecond: { type: "integer", nullable: true },
    ordered: { type: "boolean", default: false },
    retryMaxAttempts: { type: "integer", nullable: true },
    retryInitialDelayMs: { type: "integer", nullable: true },
    retryMaxDelayMs: { type: "integer", nullable: true },
    pauseAfterFailures: { type: "integer", nullable: true },
    consecutiveFailures: { type: "integer", default: 0 },
    forwardingPausedAt: { ...timestamp, nullable: true },
    pausedReason: { type: "text", nullable: true },
    rateNextStartAt: { type: "datetime", columnType: "timestamptz", nullable: true },
    probeEventId: { type: "uuid", nullable: true },
    probeLeaseExpiresAt: { ...timestamp, nullable: true },
    createdAt: { ...timestamp },
    updatedAt: { ...timestamp },
  },
});

export const DeliveryEntity = new EntitySchema<Delivery>({
  name: "Delivery",
  tableName: "deliveries",
  indexes: [
    { name: "deliveries_pending_index", expression: `create index "deliveries_pending_index" on "deliveries" ("destination_id", "event_id") where "status" = 'pending'` },
    { name: "deliveries_failed_index", expression: `create index "deliveries_failed_index" on "deliveries" ("endpoint_id", "event_id") where "status" = 'failed'` },
  ],
  properties: {
    eventId: { type: "uuid", primary: true },
    destinationId: { type: "uuid", primary: true },
    endpointId: { type: "uuid" },
    status: { enum: true, items: () => ["pending", "delivered", "failed"], columnType: "text" },
    attempts: { type: "integer", default: 0 },
    leaseExpiresAt: { ...timestamp, nullable: true },
    nextAttemptAt: { ...timestamp, nullable: true },
    completedAt: { ...timestamp, nullable: true },
    resolvedAt: { ...timestamp, nullable: true },
    resolvedByReplayId: { type: "uuid", nullable: true },
    resolvedByUserId: { type: "uuid", nullable: true },
    resolutionNote: { type: "text", nullable: true },
  },
});

export const DeliveryAttemptEntity = new EntitySchema<DeliveryAttempt>({
  name: "DeliveryAttempt",
  tableName: "delivery_attempts",
  indexes: [{ name: "delivery_attempts_event_id_attempt_index", properties: ["event", "attempt"] }],
  properties: {
    id: { type: BigIntType, primary: true, autoincrement: true },
    // No foreign key: see the fast_path_lease migration (purges delete attempts with their events).
    event: { kind: "m:1", entity: () => EventEntity, createForeignKeyConstraint: false },
    destinationId: { type: "uuid", nullable: true },
    attempt: { type: "integer" },
    startedAt: { ...timestamp },
    latencyMs: { type: "integer" },
    responseStatus: { type: "integer", nullable: true },
    responseHeaders: { type: "json", columnType: "json", nullable: true },
    responseBody: { type: "blob", nullable: true },
    responseTruncated: { type: "boolean", default: false },
    error: { type: "text", nullable: true },
    outcome: { type: "text" },
  },
});

export const ReplayAttemptEntity = new EntitySchema<ReplayAttempt>({
  name: "ReplayAttempt",
  tableName: "replay_attempts",
  indexes: [{ name: "replay_attempts_event_id_replayed_at_index", properties: ["event", "replayedAt"] }],
  properties: {
    id: { type: "uuid", primary: true },
    event: { kind: "m:1", entity: () => EventEntity, deleteRule: "cascade" },
    user: { kind: "m:1", entity: () => UserEntity, deleteRule: "set null", nullable: true, index: "replay_attempts_user_id_index" },
    environment: { type: "text" },
    destinationUrl: { type: "text" },
    status: { type: "text" },
    responseStatus: { type: "integer", nullable: true },
    responseHeaders: { type: "json", columnType: "json", nullable: true },
    responseBody: { type: "blob", nullable: true },
    responseTruncated: { type: "boolean", default: false },
    latencyMs: { type: "integer", nullable: true },
    error: { type: "text", nullable: true },
    replayedAt: { ...createdAt },
    jobId: { type: "uuid", nullable: true },
    requestMethod: { type: "text", nullable: true },
    requestHeaders: { type: "json", columnType: "json", nullable: true },
    requestBody: { type: "blob", nullable: true },
    modified: { type: "boolean", default: false },
    destinationId: { type: "uuid", nullable: true },
    localVia: { enum: true, items: () => ["browser", "listen"], columnType: "text", nullable: true },
  },
});

export const ReplayJobEntity = new EntitySchema<ReplayJob>({
  name: "ReplayJob",
  tableName: "replay_jobs",
  indexes: [{ name: "replay_jobs_team_id_index", properties: ["team", "id"] }],
  properties: {
    id: { type: "uuid", primary: true },
    team: { kind: "m:1", entity: () => TeamEntity, deleteRule: "cascade" },
    createdBy: { kind: "m:1", entity: () => UserEntity, deleteRule: "set null", nullable: true },
    endpoint: { kind: "m:1", entity: () => EndpointEntity, deleteRule: "cascade", index: "replay_jobs_endpoint_id_index" },
    environment: { type: "text" },
    customUrl: { type: "text", nullable: true },
    statusFilter: { type: "text", nullable: true },
    state: { type: "text", default: "running" },
    total: { type: "integer", default: 0 },
    done: { type: "integer", default: 0 },
    delivered: { type: "integer", default: 0 },
    failed: { type: "integer", default: 0 },
    error: { type: "text", nullable: true },
    createdAt,
    updatedAt: { ...createdAt },
    finishedAt: { ...timestamp, nullable: true },
    afterId: { type: "uuid", nullable: true },
    upTo: { type: "uuid", nullable: true },
    target: { enum: true, items: () => ["destination", "matched", "failed"], columnType: "text", nullable: true },
    destinationId: { type: "uuid", nullable: true },
  },
});

export const LocalListenerEntity = new EntitySchema<LocalListener>({
  name: "LocalListener",
  tableName: "local_listeners",
  indexes: [{ name: "local_listeners_endpoint_id_user_id_index", properties: ["endpoint", "user"] }],
  properties: {
    id: { type: "uuid", primary: true },
    team: { kind: "m:1", entity: () => TeamEntity, deleteRule: "cascade", index: "local_listeners_team_id_index" },
    endpoint: { kind: "m:1", entity: () => EndpointEntity, deleteRule: "cascade" },
    user: { kind: "m:1", entity: () => UserEntity, deleteRule: "cascade", index: "local_listeners_user_id_index" },
    keyId: { type: "uuid", nullable: true },
    connectedAt: { ...createdAt },
    seenAt: { ...createdAt },
  },
});

export const EventCountEntity = new EntitySchema<EventCount>({
  name: "EventCount",
  tableName: "event_counts",
  indexes: [{ name: "event_counts_endpoint_id_index", properties: ["endpointId"] }],
  properties: {
    id: { type: BigIntType, primary: true, autoincrement: true },
    endpointId: { type: "uuid" },
    status: { type: "text" },
    n: { type: new BigIntType("number") },
  },
});

const minute = { type: "datetime", columnType: "timestamptz" } as const;

export const EventMinuteEntity = new EntitySchema<EventMinute>({
  name: "EventMinute",
  tableName: "event_minutes",
  indexes: [
    { name: "event_minutes_endpoint_id_minute_index", properties: ["endpointId", "minute"] },
    { name: "event_minutes_minute_index", properties: ["minute"] },
  ],
  properties: {
    id: { type: BigIntType, primary: true, autoincrement: true },
    endpointId: { type: "uuid" },
    minute: { ...minute },
    captured: { type: "integer", default: 0 },
    delivered: { type: "integer", default: 0 },
    failed: { type: "integer", default: 0 },
  },
});

export const LatencyMinuteEntity = new EntitySchema<LatencyMinute>({
  name: "LatencyMinute",
  tableName: "latency_minutes",
  indexes: [
    { name: "latency_minutes_endpoint_id_minute_index", properties: ["endpointId", "minute"] },
    { name: "latency_minutes_minute_index", properties: ["minute"] },
  ],
  properties: {
    id: { type: BigIntType, primary: true, autoincrement: true },
    endpointId: { type: "uuid" },
    minute: { ...minute },
    bucket: { type: "smallint" },
    n: { type: "integer" },
  },
});

export const JobEntity = new EntitySchema<Job>({
  name: "Job",
  tableName: "jobs",
  uniques: [{ name: "jobs_kind_key_unique", properties: ["kind", "key"] }],
  indexes: [{ name: "jobs_kind_run_at_index", properties: ["kind", "runAt"] }],
  properties: {
    id: { type: BigIntType, primary: true, autoincrement: true },
    kind: { type: "text" },
    key: { type: "text" },
    payload: { type: "jsonb", default: "'{}'" },
    runAt: { ...createdAt },
    leaseUntil: { ...timestamp, nullable: true },
    attempts: { type: "integer", default: 0 },
    again: { type: "boolean", default: false },
    lastError: { type: "text", nullable: true },
    createdAt,
  },
});

export const ApiKeyEntity = new EntitySchema<ApiKey>({
  name: "ApiKey",
  tableName: "api_keys",
  properties: {
    id: { type: "uuid", primary: true },
    team: { kind: "m:1", entity: () => TeamEntity, deleteRule: "cascade", index: "api_keys_team_id_index" },
    user: { kind: "m:1", entity: () => UserEntity, deleteRule: "cascade", index: "api_keys_user_id_index" },
    role: { type: "text" },
    name: { type: "text" },
    prefix: { type: "text" },
    keyHash: { type: "blob", unique: "api_keys_key_hash_unique" },
    createdAt,
    lastUsedAt: { ...timestamp, nullable: true },
    revokedAt: { ...timestamp, nullable: true },
  },
});

export const NotificationSettingsEntity = new EntitySchema<NotificationSettings>({
  name: "NotificationSettings",
  tableName: "notification_settings",
  properties: {
    team: { kind: "1:1", entity: () => TeamEntity, primary: true, deleteRule: "cascade", owner: true },
    enabled: { type: "boolean", default: false },
    webhookUrl: { type: "text", nullable: true },
    triggers: { type: "text[]", default: "{failed}" },
    pausedReason: { type: "text", nullable: true },
    lastError: { type: "text", nullable: true },
    updatedAt: { ...createdAt, onUpdate: () => new Date() },
    nextPostAt: { ...createdAt },
    failures: { type: "integer", default: 0 },
  },
});

export const AlertRuleEntity = new EntitySchema<AlertRule>({
  name: "AlertRule",
  tableName: "alert_rules",
  indexes: [{ name: "alert_rules_team_id_trigger_index", properties: ["team", "trigger"] }],
  properties: {
    id: { type: "uuid", primary: true },
    team: { kind: "m:1", entity: () => TeamEntity, deleteRule: "cascade" },
    name: { type: "text" },
    trigger: { type: "text" },
    threshold: { type: "integer", nullable: true },
    endpoint: { kind: "m:1", entity: () => EndpointEntity, deleteRule: "cascade", nullable: true, index: "alert_rules_endpoint_id_index" },
    channel: { type: "text" },
    target: { type: "text" },
    secret: { type: "text", nullable: true },
    enabled: { type: "boolean", default: true },
    nextPostAt: { ...createdAt },
    failures: { type: "integer", default: 0 },
    pausedReason: { type: "text", nullable: true },
    lastResultAt: { ...timestamp, nullable: true },
    lastResultOk: { type: "boolean", nullable: true },
    lastResult: { type: "text", nullable: true },
    firing: { type: "text[]", default: "{}" },
    retryThrough: { type: BigIntType, nullable: true },
    createdAt,
  },
});

export const AlertSendEntity = new EntitySchema<AlertSend>({
  name: "AlertSend",
  tableName: "alert_sends",
  indexes: [
    { name: "alert_sends_sent_at_index", properties: ["sentAt"] },
    { name: "alert_sends_team_id_index", properties: ["team"] },
    { name: "alert_sends_user_id_index", properties: ["user"] },
  ],
  properties: {
    id: { type: BigIntType, primary: true, autoincrement: true },
    team: { kind: "m:1", entity: () => TeamEntity, nullable: true, deleteRule: "set null" },
    user: { kind: "m:1", entity: () => UserEntity, nullable: true, deleteRule: "set null" },
    subject: { type: "text", nullable: true },
    test: { type: "boolean" },
    email: { type: "boolean" },
    sentAt: { ...timestamp },
  },
});

export const AlertOutboxEntity = new EntitySchema<AlertOutbox>({
  name: "AlertOutbox",
  tableName: "alert_outbox",
  indexes: [{ name: "alert_outbox_rule_id_index", properties: ["rule", "id"] }],
  properties: {
    id: { type: BigIntType, primary: true, autoincrement: true },
    rule: { kind: "m:1", entity: () => AlertRuleEntity, deleteRule: "cascade" },
    kind: { type: "text" },
    eventId: { type: "uuid", nullable: true },
    endpointId: { type: "uuid", nullable: true },
    destinationId: { type: "uuid", nullable: true },
    detail: { type: "json", columnType: "jsonb", nullable: true },
    createdAt,
  },
});

export const NotificationOutboxEntity = new EntitySchema<NotificationOutbox>({
  name: "NotificationOutbox",
  tableName: "notification_outbox",
  indexes: [{ name: "notification_outbox_team_id_index", properties: ["team", "id"] }],
  properties: {
    id: { type: BigIntType, primary: true, autoincrement: true },
    team: { kind: "m:1", entity: () => TeamEntity, deleteRule: "cascade" },
    eventId: { type: "uuid" },
    trigger: { type: "text" },
    createdAt,
  },
});

/** The explicit entity list (no folder scanning, no decorators). */
export const entities = [
  AlertRuleEntity,
  AlertOutboxEntity,
  AlertSendEntity,
  UserEntity,
  UserIdentityEntity,
  TeamEntity,
  TeamMemberEntity,
  SessionEntity,
  EndpointEntity,
  EventEntity,
  ReplayAttemptEntity,
  ApiKeyEntity,
  NotificationSettingsEntity,
  ReplayJobEntity,
  NotificationOutboxEntity,
  DeliveryAttemptEntity,
  JobEntity,
  EventCountEntity,
  DedupKeyEntity,
  DestinationEntity,
  DeliveryEntity,
  EventMinuteEntity,
  LatencyMinuteEntity,
  InviteEntity,
  AuditLogEntity,
  LocalListenerEntity,
];
