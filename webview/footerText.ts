// The texts of a message's footer: how its request was routed and the tokens it used.
import type { RouteInfo, UsageInfo } from '../src/shared/protocol';
import { countText } from '../src/shared/countText';

const REASONS: Record<RouteInfo['reason'], string> = {
  override: 'keyword override',
  classifier: 'classified',
  'follow-up': 'follow-up',
  cooldown: 'cooldown',
  background: 'background result',
  manual: 'chosen by you',
  disabled: 'auto routing off',
};

export function routeText(route: RouteInfo): string {
  // With routing off there is no tier to speak of: just the model.
  if (route.tier === 'fixed') return `${route.model} · ${REASONS[route.reason]}`;
  return [route.tier, route.model, REASONS[route.reason]].join(' · ');
}

export function usageText(usage: UsageInfo): string {
  const parts: string[] = [];
  if (usage.inputTokens !== undefined) parts.push(`${countText(usage.inputTokens)} in`);
  if (usage.outputTokens !== undefined) parts.push(`${countText(usage.outputTokens)} out`);
  return parts.length ? `${parts.join(' / ')} tokens` : '';
}
