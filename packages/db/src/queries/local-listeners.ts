import { isUuid } from "@rehook/core";
import type { EntityManager } from "@mikro-orm/postgresql";
import { BUS_CHANNEL } from "../event-bus.js";

/**
 * A listener whose row was not renewed for this long is taken for gone (its instance died
 * without closing the stream). Streams renew their row every LISTENER_RENEW_MS, a third of it.
 */
export const LIVE_LISTENER_SECONDS = 45;
export const LISTENER_RENEW_MS = 15_000;

/** Registers an open `rehook listen` stream that takes local replays. */
export async function insertLocalListener(
  em: EntityManager,
  listener: { id: string; teamId: string; endpointId: string; userId: string; keyId: string | null },
): Promise<void> {
  await em.execute(`insert into local_listeners (id, team_id, endpoint_id, user_id, key_id) values (?, ?, ?, ?, ?)`, [
    listener.id,
    listener.teamId,
    listener.endpointId,
    listener.userId,
    listener.keyId,
  ]);
}

/** Says the listeners are still there (their streams are open on this instance). */
export async function renewLocalListeners(em: EntityManager, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await em.execute(`update local_listeners set seen_at = now() where id = any(?::uuid[])`, [`{${ids.join(",")}}`]);
}

/** The stream closed. Rows a dead instance left behind and nobody renewed for an hour go too. */
export async function deleteLocalListener(em: EntityManager, id: string): Promise<void> {
  await em.execute(`delete from local_listeners where id = ? or seen_at < now() - interval '1 hour'`, [id]);
}

/**
 * The member's most recently connected live listener of the endpoint, in the team (another
 * member's, or another team's, is never chosen); null when there is none.
 */
export async function findLiveLocalListener(em: EntityManager, scope: { teamId: string; endpointId: string; userId: string }): Promise<string | null> {
  if (!isUuid(scope.endpointId)) return null;
  const rows = await em.execute<Array<{ id: string }>>(
    `select id from local_listeners
     where endpoint_id = ? and user_id = ? and team_id = ? and seen_at > now() - make_interval(secs => ?)
     order by connected_at desc, id desc limit 1`,
    [scope.endpointId, scope.userId, scope.teamId, LIVE_LISTENER_SECONDS],
  );
  return rows[0]?.id ?? null;
}

/** Hands a local replay to the instance that serves the listener (on the bus: NOTIFY reaches every instance). */
export async function announceLocalReplay(em: EntityManager, request: { listenerId: string; attemptId: string; eventId: string }): Promise<void> {
  await em.execute("select pg_notify(?, ?)", [BUS_CHANNEL, JSON.stringify([{ type: "local_replay.requested", ...request }])]);
}

/** The endpoint of the team's event (null: no such event in the team). */
export async function eventEndpointOf(em: EntityManager, teamId: string, eventId: string): Promise<string | null> {
  if (!isUuid(eventId)) return null;
  const rows = await em.execute<Array<{ endpoint_id: string }>>(
    `select e.endpoint_id from events e join endpoints p on p.id = e.endpoint_id where e.id = ? and p.team_id = ?`,
    [eventId, teamId],
  );
  return rows[0]?.endpoint_id ?? null;
}
