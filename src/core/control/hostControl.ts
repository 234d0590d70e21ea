// What the orchestrator may change about Baton itself, implemented by the host (the VS Code layer writes the
// settings; tests change their settings object). Core never writes VS Code settings itself.

export interface HostControl {
  /** Turns automatic model routing on or off (baton.routing.auto). */
  setRoutingAuto(on: boolean): Promise<void>;
  /** Sets the orchestrator's model (baton.model). */
  setModel(model: string): Promise<void>;
  /** Restarts Baton's Copilot runtime (and whatever else the host restarts). Default: the runtime only. */
  restart?(): Promise<void>;
}
