import type { AddressPolicy, Alert, ChatMessage, ChatPostVerdict, Logger, SignupMode, SsoConfig } from "@rehook/core";
import type { IngressRules } from "./ingress-rules.js";
import type { CapturePool } from "./capture-pool.js";
import type { AttemptLimiter, LoginThrottle, OpenIdProvider, SessionManager } from "@rehook/auth";
import type { ClaimedDelivery, EventBus, GroupCommitWriter, Orm } from "@rehook/db";
import type { DeliveryPool, DeliveryResult, SendOptions, TestAsker, TestedRule, TestOutcome, TestRefusal } from "@rehook/delivery";

/**
 * What the use cases need from the outside world. Each use case asks for the members it uses
 * (`Pick<ServiceContext, ...>`), so the compiler, not a runtime check, says what it needs;
 * the composition root builds all of it once, with `createServices`.
 */
export interface ServiceContext {
  orm: Orm;
  writer: GroupCommitWriter;
  baseUrl: string;
  /** CAPTURE_BASE_URL: capture URLs are built from it, on a host the dashboard's cookies never reach (unset: baseUrl). */
  captureBaseUrl?: string;
  /** RETENTION_DAYS: how long an endpoint without its own retention keeps its events (0: for ever). */
  retentionDays: number;
  /** Which destination addresses are allowed (ALLOW_PRIVATE_DESTINATIONS). */
  addressPolicy: AddressPolicy;
  /**
   * Hands a just-committed event, stored already leased to this instance (see the writer's
   * fast path), to delivery at once: no polling delay and no second statement.
   */
  forwarder?: { deliverLeased(delivery: ClaimedDelivery): void; claimSoon(): void };
  sessions: SessionManager;
  /** Log-in attempts (per email, address and both) and sign-ups per address. */
  throttles: { login: LoginThrottle; signup: AttemptLimiter };
  /** SIGNUP: who may sign up on the dashboard (unset: open, as SIGNUP's default). */
  signup?: SignupMode;
  /** PASSWORD_LOGIN: false refuses the password form (unset: allowed). */
  passwordLogin?: boolean;
  /** Where use cases report what the operator must fix but the user cannot see (unset: nowhere). */
  logger?: Logger;
  /** OpenID Connect sign-in (OIDC_*): the settings and the provider's client; absent when not configured. */
  sso?: { config: SsoConfig; provider: OpenIdProvider };
  /** The clock invites expire by, and tests' send limits count by (tests move it; unset: Date.now). */
  now?: () => number;
  /** A capture's work on a large body (sender detection, routing filters) on a worker thread (absent: all on the calling thread; see capture-routing.ts). */
  capturePool?: CapturePool;
  /** Each capture URL's signature rule, checked before its row is written (absent: learnt per capture). */
  ingressRules?: IngressRules;
  /** The live feed's source: LISTEN/NOTIFY, so it hears every instance. */
  bus: EventBus;
  /** Chat incoming-webhook URLs must start with this (CHAT_HOOKS_BASE). */
  chatHooksBase: string;
  /** Replays go out through the delivery workers with forwarding's limits. */
  outbound: { pool: DeliveryPool; options: SendOptions };
  /** MAX_PAYLOAD_BYTES: the most bytes an edited replay's body may have (unset: 10 MiB, its default). */
  maxPayloadBytes?: number;
  /**
   * Sends a rule's test alert now, once the send limits allow it, and judges the answer (due
   * alerts are posted by the alert poster itself); counts another "Send a test" (the chat
   * hook's) against the same limits.
   */
  alerts?: {
    sendTest(rule: TestedRule, alert: Alert, asker: TestAsker): Promise<TestOutcome>;
    reserveTest(test: { teamId: string; subject: string; email: boolean; tested: string }, asker: TestAsker): Promise<TestRefusal | null>;
  };
  /** SMTP_URL is set: email alert rules can be saved. */
  emailAlerts?: boolean;
  /** Posts chat messages (the Settings test button; due notifications are posted by the notifier itself). */
  chat: { post(webhookUrl: string, message: ChatMessage): Promise<DeliveryResult> };
}

/** Where this server's capture URLs start: CAPTURE_BASE_URL, else BASE_URL. */
export function captureBaseOf(ctx: Pick<ServiceContext, "baseUrl" | "captureBaseUrl">): string {
  return ctx.captureBaseUrl ?? ctx.baseUrl;
}
