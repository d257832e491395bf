import { compileSavedFilters, createVerifierOrRefusal, type CompiledFilter, type DedupRule, type HandshakeRule, type SignatureVerifier } from "@rehook/core";
import type { EndpointIngress } from "@rehook/db";

/** An endpoint's signature rule, ready to check requests (verifier prepared once). */
export interface KnownRule {
  endpointId: string;
  version: number;
  /** null: the endpoint checks no signatures. */
  verify: SignatureVerifier | null;
  rejectInvalid: boolean;
  /** For Meta's unsigned subscription check (see handshakeVouchesFor). */
  handshake: HandshakeRule | null;
  /** Which requests are duplicates of earlier ones (null: none). */
  dedup: DedupRule | null;
  /** The enabled destinations with filters, each compiled once. */
  filters: Array<{ id: string; filter: CompiledFilter }>;
  /** The same filters as JSON text `[{id, filter}]`, for the filter worker (see routeCapture). */
  filtersJson: string;
  /** When it was learnt (monotonic ms). */
  learntAt: number;
}

export interface IngressRulesOptions {
  /** Most endpoints remembered; the oldest learnt is forgotten first. */
  maxEntries?: number;
  /** A rule older than this is learnt again before it rejects anything (in case a change went unheard). */
  maxAgeMs?: number;
  /** Monotonic milliseconds (tests move it). */
  now?: () => number;
}

export const DEFAULT_INGRESS_RULES_ENTRIES = 10_000;
export const DEFAULT_INGRESS_RULE_AGE_MS = 60_000;

/**
 * Each capture URL's signature, dedup and routing rules, kept per slug so a capture checks its signature before
 * its row is written, without asking the database first. What is stored never depends on
 * this being fresh: the capture statement stores only rows checked under the endpoint's
 * current rule version and hands the current rule back for the others (`recheck`). What it
 * does decide alone is a 401 under reject_invalid (nothing reaches the database then), so
 * entries are forgotten when the event bus reports the endpoint changed, all of them when the
 * bus reconnects, and any older than `maxAgeMs` is learnt again before it rejects.
 */
export class IngressRules {
  private readonly rules = new Map<string, KnownRule>();
  private readonly slugs = new Map<string, string>();
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(options: IngressRulesOptions = {}) {
    this.maxEntries = options.maxEntries ?? DEFAULT_INGRESS_RULES_ENTRIES;
    this.maxAgeMs = options.maxAgeMs ?? DEFAULT_INGRESS_RULE_AGE_MS;
    this.now = options.now ?? (() => performance.now());
  }

  /** The rule last learnt for a slug, if it is still fresh enough to reject by. */
  get(slug: string): KnownRule | undefined {
    const rule = this.rules.get(slug);
    if (rule && rule.rejectInvalid && this.now() - rule.learntAt > this.maxAgeMs) {
      this.forgetSlug(slug);
      return undefined;
    }
    return rule;
  }

  /** Takes the rule a capture statement found; a rule already known at that version is kept as it is. */
  learn(slug: string, endpointId: string, ingress: EndpointIngress): KnownRule {
    const known = this.rules.get(slug);
    if (known && known.version === ingress.verificationVersion && known.endpointId === endpointId) return known;
    const rule = ruleOf(endpointId, ingress, this.now());
    if (!known && this.rules.size >= this.maxEntries) this.forgetSlug(this.rules.keys().next().value!);
    this.rules.set(slug, rule);
    this.slugs.set(endpointId, slug);
    return rule;
  }

  /** The endpoint changed (or was deleted): its next capture learns its rule again. */
  forgetEndpoint(endpointId: string): void {
    const slug = this.slugs.get(endpointId);
    if (slug !== undefined) this.forgetSlug(slug);
  }

  clear(): void {
    this.rules.clear();
    this.slugs.clear();
  }

  get size(): number {
    return this.rules.size;
  }

  private forgetSlug(slug: string): void {
    const rule = this.rules.get(slug);
    this.rules.delete(slug);
    if (rule) this.slugs.delete(rule.endpointId);
  }
}

/** A rule ready to use, without remembering it (a context without IngressRules). */
export function ruleOf(endpointId: string, ingress: EndpointIngress, learntAt = 0): KnownRule {
  const verification = ingress.verification;
  return {
    endpointId,
    version: ingress.verificationVersion,
    // A saved rule a later, stricter check refuses marks requests invalid (bad_secret), never a 503.
    verify: verification ? createVerifierOrRefusal(verification) : null,
    rejectInvalid: verification?.rejectInvalid ?? false,
    handshake: ingress.handshake,
    dedup: ingress.dedup,
    filters: compileSavedFilters(ingress.filters),
    filtersJson: JSON.stringify(ingress.filters.map(({ id, filter }) => ({ id, filter }))),
    learntAt,
  };
}
