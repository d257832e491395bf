import type { ApiKeyView } from "@rehook/services";

/** An API key's details in the wire spelling (snake_case, ISO times): what `rehook apikey create` prints. */
export function wireApiKey(key: ApiKeyView) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    role: key.role,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}
