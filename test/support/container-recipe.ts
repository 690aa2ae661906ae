import fs from 'node:fs';
import { projectPath } from '../../src/shared/paths.js';

/** One instruction of a Dockerfile: its keyword (upper case) and its arguments, continuation lines joined. */
export interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

export interface Stage {
  name: string | undefined;
  image: string;
  instructions: Instruction[];
}

/** What the runtime stage says about the process the image starts. */
export interface StartRecipe {
  image: string;
  workdir: string;
  user: string | undefined;
  env: Record<string, string>;
  cmd: string[];
  healthcheck: string[];
  stopSignal: string | undefined;
  exposed: string[];
  /** COPY instructions: sources (from the build context or another stage) and their destination in WORKDIR. */
  copies: { from: string | undefined; sources: string[]; destination: string }[];
  /** RUN instructions (shell form), in order. */
  runs: string[];
}

export const DOCKERFILE = projectPath('Dockerfile');

/** The instructions of a Dockerfile, comments and blank lines dropped, `\` continuations joined. */
export function parseInstructions(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending: { text: string; line: number } | undefined;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trimEnd();
    if (pending === undefined && (line.trim() === '' || line.trimStart().startsWith('#'))) return;
    if (pending !== undefined && line.trimStart().startsWith('#')) return;
    const continued = line.endsWith('\\');
    const body = continued ? line.slice(0, -1) : line;
    pending = pending === undefined ? { text: body.trim(), line: index + 1 } : { text: `${pending.text} ${body.trim()}`, line: pending.line };
    if (continued) return;
    const match = /^(\S+)\s*(.*)$/.exec(pending.text);
    if (match) instructions.push({ keyword: (match[1] ?? '').toUpperCase(), args: (match[2] ?? '').trim(), line: pending.line });
    pending = undefined;
  });
  return instructions;
}

export function parseStages(text: string): Stage[] {
  const stages: Stage[] = [];
  for (const instruction of parseInstructions(text)) {
    if (instruction.keyword === 'FROM') {
      const [image = '', as, name] = instruction.args.split(/\s+/);
      stages.push({ image, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return stages;
}

/** `KEY=value KEY2="value 2"` (the ENV form this Dockerfile uses). */
function parseEnv(args: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const match of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("([^"]*)"|(\S*))/g)) {
    env[match[1] ?? ''] = match[3] ?? match[4] ?? '';
  }
  return env;
}

/** The JSON (exec) form of CMD, HEALTHCHECK CMD or ENTRYPOINT; throws on the shell form. */
function execForm(args: string, what: string): string[] {
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((part): part is string => typeof part === 'string')) throw new Error(`${what} is not in exec form: ${args}`);
  return parsed;
}

/** The last stage of the Dockerfile (the image `docker build` produces), read as the container runtime reads it. */
export function runtimeRecipe(text = fs.readFileSync(DOCKERFILE, 'utf8')): StartRecipe {
  const stage = parseStages(text).at(-1);
  if (!stage) throw new Error('the Dockerfile has no stage');
  const recipe: StartRecipe = { image: stage.image, workdir: '/', user: undefined, env: {}, cmd: [], healthcheck: [], stopSignal: undefined, exposed: [], copies: [], runs: [] };
  for (const { keyword, args } of stage.instructions) {
    if (keyword === 'WORKDIR') recipe.workdir = args;
    else if (keyword === 'USER') recipe.user = args;
    else if (keyword === 'ENV') Object.assign(recipe.env, parseEnv(args));
    else if (keyword === 'CMD') recipe.cmd = execForm(args, 'CMD');
    else if (keyword === 'ENTRYPOINT') throw new Error('the runtime stage has an ENTRYPOINT: the start command is CMD alone');
    else if (keyword === 'HEALTHCHECK') recipe.healthcheck = execForm(args.replace(/^(--\S+\s+)*CMD\s+/, ''), 'HEALTHCHECK');
    else if (keyword === 'STOPSIGNAL') recipe.stopSignal = args;
    else if (keyword === 'EXPOSE') recipe.exposed.push(...args.split(/\s+/));
    else if (keyword === 'RUN') recipe.runs.push(args);
    else if (keyword === 'COPY') {
      const words = args.split(/\s+/);
      const from = words.find((word) => word.startsWith('--from='))?.slice('--from='.length);
      const paths = words.filter((word) => !word.startsWith('--'));
      recipe.copies.push({ from, sources: paths.slice(0, -1), destination: paths.at(-1) ?? '' });
    }
  }
  return recipe;
}
