import { connect } from '@flockstep/client';

const client = await connect(process.env.FLOCKSTEP_URL ?? 'ws://localhost:8080/ws');
const welcome = await client.join({ role: 'player', name: 'sdk-example' });
console.log(`craft ${welcome.entityId} in room ${welcome.room}`);
client.on('snapshot', (s) => { if (s.serverTick % 60 === 0) console.log(s.serverTick, s.agents.length, s.own?.position); });
client.on('events', (e) => e.captures.forEach((c) => console.log('caught by', c.pursuerId)));
const timer = setInterval(() => client.sendInput({ turn: 0.2, throttle: 1 }), 1000 / welcome.tickRateHz);
setTimeout(() => { clearInterval(timer); console.log('predicted', client.prediction?.position); client.close(); }, 3000);
