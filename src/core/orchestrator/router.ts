// Model routing after Max: keyword overrides first, then a cheap classifier; short follow-ups keep
// the tier, background results use standard, and a cooldown of two messages stops flapping.
import type { RouteInfo } from '../../shared/protocol';

export type Tier = 'fast' | 'standard' | 'premium';
export const TIERS: readonly Tier[] = ['fast', 'standard', 'premium'];

export interface RoutingSettings {
  auto: boolean;
  /** The model used when routing is off. */
  model: string;
  tiers: Record<Tier, string>;
  overrides: Array<{ keywords: string[]; tier: Tier }>;
  cooldownMessages: number;
}

export const DEFAULT_OVERRIDE_KEYWORDS = [
  'design',
  'ui',
  'ux',
  'css',
  'layout',
  'styling',
  'visual',
  'mockup',
  'wireframe',
  'frontend design',
  'tailwind',
  'responsive',
];

export const DEFAULT_TIERS: Record<Tier, string> = {
  fast: 'gpt-4.1',
  standard: 'claude-sonnet-4.6',
  premium: 'claude-opus-4.6',
};

/** What survives a restart: the tier in force and how many messages ago it was chosen. */
export interface RouterState {
  tier: Tier;
  sinceSwitch: number;
}

export type Classifier = (prompt: string) => Promise<Tier | undefined>;

const FOLLOW_UP = /^(y(es|ep|eah)?|no?|ok(ay)?|sure|thanks?( you)?|ty|go( ahead)?|do it|continue|please|k|cool|great|nice|perfect)[.!]*$/i;

/**
 * Keywords come from settings.json, whatever the user typed there: one that is not text must not fail the turn, and a
 * blank one would match every message (it sent all of them to premium); neither counts.
 */
function matchesKeyword(text: string, keyword: unknown): boolean {
  if (typeof keyword !== 'string' || !keyword.trim()) return false;
  const escaped = keyword.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+');
  return new RegExp(`(^|[^a-z0-9])${escaped}([^a-z0-9]|$)`, 'i').test(text);
}

export class ModelRouter {
  constructor(private state: RouterState = { tier: 'standard', sinceSwitch: Number.MAX_SAFE_INTEGER }) {}

  get current(): RouterState {
    return { ...this.state };
  }

  /**
   * Picks the route for one message. `background` results always use standard; when routing is
   * off, the configured model answers everything.
   */
  async route(prompt: string, opts: { settings: RoutingSettings; background: boolean; classify: Classifier }): Promise<RouteInfo> {
    const { settings } = opts;
    if (!settings.auto) return { tier: 'fixed', model: settings.model, reason: 'disabled' };
    if (opts.background) return this.apply('standard', 'background', settings, false);

    const text = prompt.trim();
    for (const override of settings.overrides) {
      const keywords: unknown[] = Array.isArray(override.keywords) ? override.keywords : [override.keywords];
      if (keywords.some((k) => matchesKeyword(text, k))) return this.apply(override.tier, 'override', settings, true);
    }
    if (text.length < 20 || FOLLOW_UP.test(text)) return this.apply(this.state.tier, 'follow-up', settings, false);

    const wanted = await opts.classify(text).catch(() => undefined);
    if (!wanted) return this.apply(this.state.tier, 'classifier', settings, false);
    if (wanted !== this.state.tier && this.state.sinceSwitch < settings.cooldownMessages) {
      return this.apply(this.state.tier, 'cooldown', settings, false);
    }
    return this.apply(wanted, 'classifier', settings, false);
  }

  /** `force` lets an explicit override switch even inside the cooldown: the user asked for it by name. */
  private apply(tier: Tier, reason: RouteInfo['reason'], settings: RoutingSettings, force: boolean): RouteInfo {
    if (tier !== this.state.tier && (force || reason !== 'cooldown')) {
      this.state = { tier, sinceSwitch: 0 };
    } else {
      this.state = { tier: this.state.tier, sinceSwitch: Math.min(this.state.sinceSwitch + 1, 1_000_000) };
    }
    return { tier: this.state.tier, model: settings.tiers[this.state.tier], reason };
  }
}

export function parseTier(text: string): Tier | undefined {
  const match = /\b(fast|standard|premium)\b/i.exec(text);
  return match ? (match[1].toLowerCase() as Tier) : undefined;
}

export const CLASSIFIER_PROMPT = `Classify the user's message for model routing. Reply with exactly one word:
fast — greetings, small talk, simple facts, yes/no, short status questions;
standard — ordinary coding help, explanations, planning, most tasks;
premium — hard reasoning, architecture, large refactors, subtle debugging.

Message:
`;

/** The router state saved in the store; a bad or missing value falls back to the default state. */
export function parseRouterState(raw: string | undefined): RouterState | undefined {
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw) as RouterState;
    if (TIERS.includes(parsed.tier) && Number.isFinite(parsed.sinceSwitch)) return parsed;
  } catch {
    /* not JSON: the default state */
  }
  return undefined;
}
