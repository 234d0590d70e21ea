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
}

export interface CallUsage {
  inputTokens: number;
  outputTokens: number;
  /** The premium requests this call is billed: its multiplier if it carries a user request, else 0. */
  premiumRequests: number;
  /** 1 if the call carries a user request (a billed request), else 0. */
  requests: number;
}

export function callUsage(data: UsageEventData): CallUsage {
  const billed = data.initiator === undefined || data.initiator === 'user';
  return {
    inputTokens: data.inputTokens ?? 0,
    outputTokens: data.outputTokens ?? 0,
    premiumRequests: billed ? (data.cost ?? 0) : 0,
    requests: billed ? 1 : 0,
  };
}
