// One model call's usage as the runtime reports it (its assistant.usage event), and what of it is billed.
// The runtime's own accounting, checked against it (scripted server, a model with billing multiplier 3): every call of
// a user request reports `cost: 3` (the model's multiplier) and an `initiator`: "user" for the call that carries the
// prompt, "agent" for each tool round after it (the same value goes out as the X-Initiator header). Copilot bills
// user-initiated requests only, so a request costs its multiplier once, however many tool rounds it takes; summing
// `cost` over every call counted a worker with five tool rounds five times.

/** The fields of an assistant.usage event Baton reads. */
export interface UsageEventData {
  inputTokens?: number;
  outputTokens?: number;
  /** The model's billing multiplier, reported on every call. */
  cost?: number;
  /** What started the call: "user" (or absent) for a request's first call; "agent", "sub-agent"… for the rest. */
  initiator?: string;
  /** The model the call went to. */
  model?: string;
}

export interface CallUsage {
  inputTokens: number;
  outputTokens: number;
  /** The premium requests this call is billed: its multiplier if it carries a user request, else 0. */
  premiumRequests: number;
  /** 1 if the call carries a user request (a billed request), else 0. */
  requests: number;
}

// Each model's multiplier as the runtime last reported it on a call, in this process. A request stopped, timed out or
// failed before its first call returned gets no report, but was sent (and billed) all the same: it is counted at this.
// Bound: one entry per model id the runtime answered with (a few dozen at most).
const multipliers = new Map<string, number>();

/** The billing multiplier the runtime reported for `model`'s calls, once one of them returned. */
export function knownMultiplier(model: string): number | undefined {
  return multipliers.get(model);
}

export function callUsage(data: UsageEventData): CallUsage {
  const billed = data.initiator === undefined || data.initiator === 'user';
  // Only a request's first call carries its multiplier: a tool round's cost says nothing about what a request costs.
  if (billed && data.model && typeof data.cost === 'number' && Number.isFinite(data.cost) && data.cost >= 0) multipliers.set(data.model, data.cost);
  return {
    inputTokens: data.inputTokens ?? 0,
    outputTokens: data.outputTokens ?? 0,
    premiumRequests: billed ? (data.cost ?? 0) : 0,
    requests: billed ? 1 : 0,
  };
}
