// Compile-time test of sdk/js/index.d.ts (ctest sdk_js_types: tsc --noEmit --strict): a typed
// client uses every call and event; the @ts-expect-error lines must stay errors, so declarations
// that were too loose (any) fail the test as well as wrong ones.
import {
  connect,
  listRooms,
  PROTOCOL_VERSION,
  RECONNECT_DEFAULTS,
  type Agent,
  type CloseInfo,
  type ReconnectAttempt,
  type RoomInfo,
  type RoomList,
  type Snapshot,
  type Welcome,
} from '@flockstep/client';

export async function play(url: string): Promise<number> {
  const client = await connect(url);
  const welcome: Welcome = await client.join({ role: 'player', name: 'typed', room: 'arena' });
  const version: 2 = PROTOCOL_VERSION;
  const width: number = welcome.world.width + welcome.world.obstacles[0].radius;
  const off = client.on('snapshot', (s: Snapshot) => {
    const own: Agent | null = s.own;
    const x: number = own ? own.position.x : 0;
    const kind: 'player' | 'flock' | 'pursuer' | 'patrol' | 'wanderer' = s.agents[0].kind;
    const corrected: boolean | undefined = s.prediction?.corrected;
    void [x, kind, corrected, s.baselineTick + s.serverTick];
  });
  client.on('events', (e) => e.captures.forEach((c) => void (c.pursuerId + c.survivedTicks)));
  client.on('close', (c: CloseInfo) => void (c.code === 'unknown_room' ? c.reason : c.wsCode));
  const seq: number = client.sendInput({ turn: -0.5, throttle: 1 });
  const rtt: number = (await client.ping()).rttMs;
  const predicted = client.prediction;
  const heading: number = predicted ? predicted.heading : 0;
  client.setView({ min: { x: 0, y: 0 }, max: { x: 100, y: 50 } });
  off();
  client.close();

  // @ts-expect-error roles are 'player' | 'spectator'
  await client.join({ role: 'pilot', name: 'x' });
  // @ts-expect-error turn is a number
  client.sendInput({ turn: 'left' });
  // @ts-expect-error no such event
  client.on('snapshots', () => {});
  // @ts-expect-error agents' kinds are words, not wire numbers
  const wrong: number = welcome.world.groups.length > 0 ? ({} as Agent).kind : 0;
  // @ts-expect-error a snapshot's agents are read-only data, not a method
  (({} as Snapshot).agents as Agent[])();
  return version + width + seq + rtt + heading + wrong;
}

// Reconnection, rooms, spectating with a view window.
export async function watch(url: string): Promise<string> {
  const list: RoomList = await listRooms(url);
  const room: RoomInfo | undefined = list.rooms.find((r) => r.running && r.name !== list.defaultRoom);
  const client = await connect(url, { reconnect: { initialDelayMs: 50, maxAttempts: 3 } });
  const noRetry = await connect(url, { reconnect: false });
  noRetry.close();
  await client.join({ role: 'spectator', name: 'typed', room: room?.name, view: { min: { x: 0, y: 0 }, max: { x: 50, y: 50 } } });
  client.on('reconnecting', (a: ReconnectAttempt) => void (a.attempt + a.delayMs + a.lost.wsCode));
  client.on('reconnected', (w: Welcome) => void w.entityId);
  const again: Welcome = await client.reconnect();
  const busy: boolean = client.reconnecting;
  const rooms: RoomList = await client.listRooms();
  const defaults: number = RECONNECT_DEFAULTS.maxDelayMs;
  // @ts-expect-error the policy's fields are numbers
  await connect(url, { reconnect: { factor: 'double' } });
  // @ts-expect-error the defaults are read-only
  RECONNECT_DEFAULTS.maxAttempts = 1;
  return `${again.room} ${busy} ${rooms.maxRooms} ${defaults}`;
}
