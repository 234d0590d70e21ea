import { benchPanel } from '/work/main/bench/panel.bench';
benchPanel({ quick: process.argv.includes('--quick') }).then((f) => { for (const x of f) console.log(x.name.padEnd(70), x.value.toFixed(1), x.unit, x.target ?? ''); process.exit(0); }, (e) => { console.error(e); process.exit(1); });
