import pg from "pg";
import type { EventStatus } from "@rehook/core";

/**
 * What instances tell each other through PostgreSQL: the live feed and cache invalidation
 * listen to it. Event messages name the endpoint's owner (`teamId`) so a subscriber can skip
 * other users' events without a query; messages from an instance that predates the field lack it.
 */
export type BusMessage =
  // teamId is absent from messages of instances older than this version (a rolling upgrade).
  | { type: "event.created"; id: string; endpointId: string; teamId?: string; status: EventStatus }
  | { type: "event.status"; id: string; endpointId: string; teamId?: string; status: EventStatus }
  | { type: "endpoint.changed"; id: string; change: "created" | "updated" | "deleted" }
  // A member left or was removed (userId), or a key was revoked (keyId): streams re-check their access.
  | { type: "access.changed"; teamId: string; userId?: string; keyId?: string }
  // A Local replay for the `rehook listen` stream `listenerId` (see local_listeners): its instance hands it over.
  | { type: "local_replay.requested"; listenerId: string; attemptId: string; eventId: string };

export const BUS_CHANNEL = "rehook_events";

/**
 * How statements announce events from SQL: one message per endpoint and status naming many
 * events (`ids`), which EventBus expands into one event message per id for its listeners.
 * About 40 bytes an event on the wire instead of 200, so a busy endpoint's captures cost
 * the database and every listening instance a fifth of the NOTIFY traffic and parsing.
 */
type AnnouncedEvents = {
  type: "events.created" | "events.status";
  endpointId: string;
  teamId: string;
  status: EventStatus;
  ids: string[];
};

// 160 ids of 40 bytes ("uuid", plus the separator) and the message's other fields stay near
// 6,600 bytes, under NOTIFY's payload limit of 8,000.
const IDS_PER_NOTIFY = 160;

/**
 * A CTE, `announced`, that sends event messages on the bus from inside a statement: NOTIFY is
 * delivered at commit, so listeners never hear of rows that were not committed, and the
 * statement that changes the events needs no second round trip to announce them.
 * `rows` names a relation with id, endpoint_id and team_id; `status` is an SQL expression over
 * it; `channel` an SQL expression for BUS_CHANNEL (a parameter placeholder, or the literal).
 * The CTE is a plain SELECT, so the statement must read it (`(select count(*) from announced)`).
 */
export function announceEventsCte(options: { rows: string; type: "event.created" | "event.status"; status: string; channel: string }): string {
  const type: AnnouncedEvents["type"] = options.type === "event.created" ? "events.created" : "events.status";
  return `
announced as (
  select pg_notify(${options.channel}, json_build_array(json_build_object(
           'type', '${type}', 'endpointId', endpoint_id, 'teamId', team_id, 'status', status, 'ids', json_agg(id)))::text)
  from (select id, endpoint_id, team_id, ${options.status} as status,
               (row_number() over (partition by endpoint_id order by id) - 1) / ${IDS_PER_NOTIFY} as chunk
        from ${options.rows}) m
  group by endpoint_id, team_id, status, chunk
)`;
}

/** BUS_CHANNEL as an SQL literal, for statements that announce without a parameter. */
export const BUS_CHANNEL_LITERAL = `'${BUS_CHANNEL}'`;

export type BusListener = (message: BusMessage) => void;

/**
 * One LISTEN connection per instance. It reconnects by itself after a lost connection
 * (with backoff); messages published while it was away are not replayed, so listeners
 * that need completeness re-read the database on `onReconnect`.
 */
export class EventBus {
  private client: pg.Client | undefined;
  private readonly listeners = new Set<BusListener>();
  private readonly reconnectListeners = new Set<() => void>();
  private closed = false;
  private retryMs = 250;

  private constructor(private readonly databaseUrl: string, private readonly onError: (error: Error) => void) {}

  static async connect(databaseUrl: string, onError: (error: Error) => void = () => undefined): Promise<EventBus> {
    const bus = new EventBus(databaseUrl, onError);
    await bus.open();
    return bus;
  }

  subscribe(listener: BusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client?.end().catch(() => undefined);
  }

  private async open(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl, connectionTimeoutMillis: 5_000, application_name: "rehook-bus" });
    client.on("notification", (notification) => this.deliver(notification.payload));
    client.on("error", (error) => this.lost(client, error));
    client.on("end", () => this.lost(client, new Error("connection ended")));
    await client.connect();
    await client.query(`listen ${BUS_CHANNEL}`);
    this.client = client;
    this.retryMs = 250;
  }

  private deliver(payload: string | undefined): void {
    if (!payload || this.listeners.size === 0) return;
    let messages: Array<BusMessage | AnnouncedEvents>;
    try {
      messages = JSON.parse(payload) as Array<BusMessage | AnnouncedEvents>;
    } catch {
      return;
    }
    for (const message of messages) {
      if ("ids" in message) {
        const type = message.type === "events.created" ? "event.created" : "event.status";
        for (const id of message.ids) this.emit({ type, id, endpointId: message.endpointId, teamId: message.teamId, status: message.status });
      } else this.emit(message);
    }
  }

  private emit(message: BusMessage): void {
    for (const listener of this.listeners) listener(message);
  }

  private lost(client: pg.Client, error: Error): void {
    if (this.closed || this.client !== client) return;
    this.client = undefined;
    this.onError(error);
    const retry = () => {
      if (this.closed) return;
      this.open().then(
        () => this.reconnectListeners.forEach((listener) => listener()),
        (reason: unknown) => {
          this.onError(reason instanceof Error ? reason : new Error(String(reason)));
          this.retryMs = Math.min(this.retryMs * 2, 5_000);
          setTimeout(retry, this.retryMs);
        },
      );
    };
    setTimeout(retry, this.retryMs);
  }
}
