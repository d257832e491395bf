/*
 * What an endpoint read through the ORM shows of its destinations, as SQL computed with it
 * (formula properties): one index probe each on destinations (endpoint_id, position).
 */

/** The endpoint's first destination's URL: what destination_url has always meant. */
export const FIRST_DESTINATION_URL = (endpoint: string) =>
  `(select d.url from destinations d where d.endpoint_id = ${endpoint}.id order by d.position limit 1)`;

/** The count of destinations and of paused ones, the first one's delivery settings, and the first paused one (EndpointRouting). */
export const ENDPOINT_ROUTING = (endpoint: string) => `(
  select json_build_object(
    'destinations', count(*),
    'paused', count(*) filter (where d.forwarding_paused_at is not null),
    'first', (array_agg(json_build_object(
      'id', d.id, 'retry_max_attempts', d.retry_max_attempts, 'retry_initial_delay_ms', d.retry_initial_delay_ms,
      'retry_max_delay_ms', d.retry_max_delay_ms, 'pause_after_failures', d.pause_after_failures,
      'consecutive_failures', d.consecutive_failures, 'forwarding_paused_at', d.forwarding_paused_at, 'paused_reason', d.paused_reason
    ) order by d.position))[1],
    'firstPaused', (array_agg(json_build_object('name', d.name, 'paused_reason', d.paused_reason, 'forwarding_paused_at', d.forwarding_paused_at)
                    order by d.position) filter (where d.forwarding_paused_at is not null))[1]
  )
  from destinations d where d.endpoint_id = ${endpoint}.id)`;
