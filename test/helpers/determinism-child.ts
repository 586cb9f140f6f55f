/**
 * The child-process side of the determinism suite: `node [V8 flags] determinism-child.js
 * <programs.json> <config.json>` runs the programs (determinism-runner.ts) and writes their
 * outcomes to stdout as JSON. test/determinism.test.ts bundles this file with esbuild and
 * starts it under `--jitless`, `--no-opt` and the like.
 */
import { readFileSync } from 'node:fs';
import { type ProgramSpec, type RunConfig, runPrograms } from './determinism-runner.js';

const [programsFile, configFile] = process.argv.slice(2) as [string, string];
const programs = JSON.parse(readFileSync(programsFile, 'utf8')) as ProgramSpec[];
const config = JSON.parse(readFileSync(configFile, 'utf8')) as RunConfig & { warmup?: number };
// Optional warm-up: run everything a few times first, so the outcomes recorded are those of
// code V8 has had the chance to optimise.
for (let i = 0; i < (config.warmup ?? 0); i++) runPrograms(programs, config);
process.stdout.write(JSON.stringify(runPrograms(programs, config)));
