// The runtime's own sandbox for worker shells (Bubblewrap on Linux, seatbelt on macOS), as Baton
// asks for it. Measured facts this relies on (shared/RUNTIME-ISOLATION.md): the sandbox is applied
// with session.rpc.options.update after create AND after every resume (a create-time config is
// dropped); the runtime runs `bwrap` from PATH; with outbound network allowed it uses a firewall
// mode that needs slirp4netns and iptables, and without them every command fails (closed, never
// open). So Baton checks what the machine has before it asks, and says what is missing and the fix.
// What each network mode reaches is measured in workers/workerNetwork.ts.
import { accessSync, constants } from 'node:fs';
import * as path from 'node:path';
import type { CopilotSession } from '@github/copilot-sdk';

/** The runtime's sandboxConfig, as session.rpc.options.update takes it. */
export type RuntimeSandboxConfig = NonNullable<Parameters<CopilotSession['rpc']['options']['update']>[0]['sandboxConfig']>;

export interface SandboxPolicy {
  /** Never visible inside the sandbox (mounted empty): the protected paths. */
  deniedPaths: string[];
  readonlyPaths: string[];
  /** The worker's own directory and what its tools must write (the runtime adds cwd and TMPDIR itself). */
  readwritePaths: string[];
  network: SandboxNetwork;
}

/** The network part of a worker's policy (resolved and checked by workers/workerNetwork.ts). */
export interface SandboxNetwork {
  /** 'internet': outbound, not this machine or the local network; 'allow': everything; 'deny': none. */
  mode: 'internet' | 'allow' | 'deny';
  allowedHosts: string[];
  blockedHosts: string[];
  /** The user's proxy; credentials in their own fields, never in the URL. */
  proxy?: { url: string; username?: string; password?: string };
  /** The network line for this policy, in full (Doctor, the Workers view's tooltip, the card's tooltip). */
  line: string;
  /** The same in a few words, for the card itself ('internet only', 'network off', …). */
  brief: string;
}

/** The network a worker's shell has: the mode in force, and whether the runtime's own event confirmed it. */
export interface SandboxNetworkStatus {
  mode: SandboxNetwork['mode'];
  line: string;
  brief: string;
  /** The runtime's policy_resolved event reported this mode (undefined until a command ran). */
  verified?: boolean;
}

/** What this machine can enforce; `reason` and `fix` are shown on the card and by Doctor. */
export interface SandboxSupport {
  available: boolean;
  reason?: string;
  fix?: string;
  /** Outbound network inside the sandbox needs extra tools on Linux. */
  networkAvailable: boolean;
  networkReason?: string;
  /** Folders of programs the runtime itself runs inside a sandbox (its bundled ripgrep): readable to every worker. */
  runtimeTools?: string[];
}

/**
 * What a worker's sandbox is, as far as Baton knows: 'off' (the user's setting), 'unsupported'
 * (cannot engage here), 'applied' (the runtime accepted the policy; commands fail closed if it
 * cannot enforce it), 'engaged' (a sandbox.decision said so), 'failed' (one said it could not).
 */
export type SandboxState = 'off' | 'unsupported' | 'applied' | 'engaged' | 'failed';

export interface SandboxStatus {
  state: SandboxState;
  reason?: string;
  /** While the sandbox holds ('applied'/'engaged'): what the worker's shell can reach. */
  network?: SandboxNetworkStatus;
}

function onPath(name: string, envPath: string | undefined): string | undefined {
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

export function sandboxSupport(platform: NodeJS.Platform = process.platform, envPath: string | undefined = process.env.PATH): SandboxSupport {
  if (platform === 'darwin')
    return { available: onPath('sandbox-exec', envPath ?? '/usr/bin') !== undefined, reason: 'sandbox-exec is missing', networkAvailable: true };
  if (platform !== 'linux') {
    return {
      available: false,
      reason: `the Copilot runtime has no sandbox on ${platform}`,
      fix: 'Every shell command of a worker asks you first.',
      networkAvailable: false,
    };
  }
  // /usr/sbin holds iptables on Debian; a user's PATH may lack it although the runtime finds it there.
  const searchPath = `${envPath ?? ''}${path.delimiter}/usr/sbin${path.delimiter}/sbin`;
  if (!onPath('bwrap', searchPath)) {
    return {
      available: false,
      reason: 'Bubblewrap (bwrap) is not installed',
      fix: 'Install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap).',
      networkAvailable: false,
    };
  }
  const missing = ['slirp4netns', 'iptables'].filter((t) => !onPath(t, searchPath));
  return missing.length
    ? {
        available: true,
        networkAvailable: false,
        networkReason: `network inside the sandbox needs ${missing.join(' and ')} (sudo apt-get install ${missing.join(' ')})`,
      }
    : { available: true, networkAvailable: true };
}

/** The network mode in force for `policy` on a machine with `support`, and its line for the card. */
export function networkInForce(policy: SandboxPolicy, support: SandboxSupport): SandboxNetworkStatus {
  // Without slirp4netns/iptables an allowed network would make every command fail; the network is cut instead (and said so).
  if (policy.network.mode !== 'deny' && !support.networkAvailable)
    return { mode: 'deny', line: `network off: ${support.networkReason ?? 'unavailable'}`, brief: 'network off' };
  return { mode: policy.network.mode, line: policy.network.line, brief: policy.network.brief };
}

/** The runtime's sandboxConfig for `policy` on a machine with `support`. */
export function toSandboxConfig(policy: SandboxPolicy, support: SandboxSupport): RuntimeSandboxConfig {
  const mode = networkInForce(policy, support).mode;
  const n = policy.network;
  const network: NonNullable<NonNullable<RuntimeSandboxConfig['userPolicy']>['network']> =
    mode === 'deny'
      ? { allowOutbound: false }
      : {
          allowOutbound: true,
          allowLocalNetwork: mode === 'allow',
          ...(n.allowedHosts.length ? { allowedHosts: n.allowedHosts } : {}),
          ...(n.blockedHosts.length ? { blockedHosts: n.blockedHosts } : {}),
          ...(n.proxy ? { proxy: n.proxy } : {}),
        };
  return {
    enabled: true,
    // A bypass is offered to the model only so that the user, never the model, decides it (see workerPermissions.ts).
    allowBypass: true,
    userPolicy: {
      filesystem: { deniedPaths: policy.deniedPaths, readonlyPaths: policy.readonlyPaths, readwritePaths: policy.readwritePaths },
      network,
    },
  };
}

/** The network mode a runtime policy_resolved event reports, or undefined when it says nothing of it. */
export function reportedNetworkMode(data: { allowOutbound?: unknown; allowLocalNetwork?: unknown }): SandboxNetwork['mode'] | undefined {
  if (typeof data.allowOutbound !== 'boolean') return undefined;
  if (!data.allowOutbound) return 'deny';
  return data.allowLocalNetwork === true ? 'allow' : 'internet';
}
