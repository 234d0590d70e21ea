// squad_analyze: what a project is made of, read from the files that declare it (manifests, lockfiles, CI
// workflows, Dockerfiles), never by running anything. Only the top level and a few well-known places are
// read, so a huge repository costs a handful of small reads.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface ProjectAnalysis {
  dir: string;
  languages: string[];
  frameworks: string[];
  packageManagers: string[];
  testTools: string[];
  ci: string[];
  containers: string[];
  /** Files the findings came from, relative to `dir`. */
  evidence: string[];
}

const MAX_MANIFEST_BYTES = 512 * 1024;

/** package.json dependency → framework or test tool. */
const NODE_FRAMEWORKS: Record<string, string> = {
  react: 'React',
  next: 'Next.js',
  vue: 'Vue',
  nuxt: 'Nuxt',
  svelte: 'Svelte',
  '@sveltejs/kit': 'SvelteKit',
  '@angular/core': 'Angular',
  express: 'Express',
  fastify: 'Fastify',
  koa: 'Koa',
  '@nestjs/core': 'NestJS',
  electron: 'Electron',
  'react-native': 'React Native',
  vite: 'Vite',
  webpack: 'webpack',
  esbuild: 'esbuild',
  tailwindcss: 'Tailwind CSS',
  '@types/vscode': 'VS Code extension API',
};
const NODE_TESTS: Record<string, string> = {
  jest: 'jest',
  mocha: 'mocha',
  vitest: 'vitest',
  ava: 'ava',
  jasmine: 'jasmine',
  '@playwright/test': 'Playwright',
  cypress: 'Cypress',
  tap: 'tap',
};
const PYTHON_FRAMEWORKS: Record<string, string> = { django: 'Django', flask: 'Flask', fastapi: 'FastAPI', numpy: 'NumPy', pandas: 'pandas', torch: 'PyTorch' };
const PYTHON_TESTS: Record<string, string> = { pytest: 'pytest', nose2: 'nose2', tox: 'tox', hypothesis: 'hypothesis' };
const GO_FRAMEWORKS: Record<string, string> = {
  'github.com/gin-gonic/gin': 'Gin',
  'github.com/labstack/echo': 'Echo',
  'github.com/gofiber/fiber': 'Fiber',
  'github.com/spf13/cobra': 'Cobra',
};
const RUST_FRAMEWORKS: Record<string, string> = { tokio: 'Tokio', actix_web: 'Actix Web', 'actix-web': 'Actix Web', axum: 'Axum', rocket: 'Rocket' };

export async function analyzeProject(dir: string): Promise<ProjectAnalysis> {
  const a = new Findings(dir);
  const top = new Set(await readdir(dir).catch(() => [] as string[]));
  const read = (file: string): Promise<string | undefined> => readSmall(join(dir, file));

  // JavaScript / TypeScript
  if (top.has('package.json')) {
    a.saw('package.json');
    a.add('languages', 'JavaScript');
    const pkg = parseJson(await read('package.json'));
    const deps = { ...record(pkg?.dependencies), ...record(pkg?.devDependencies), ...record(pkg?.peerDependencies) };
    if (deps.typescript || top.has('tsconfig.json')) a.add('languages', 'TypeScript');
    for (const [dep, name] of Object.entries(NODE_FRAMEWORKS)) if (deps[dep]) a.add('frameworks', name);
    for (const [dep, name] of Object.entries(NODE_TESTS)) if (deps[dep]) a.add('testTools', name);
    const testScript = String(record(pkg?.scripts).test ?? '');
    for (const name of Object.values(NODE_TESTS)) if (new RegExp(`\\b${name}\\b`).test(testScript)) a.add('testTools', name);
    if (/\bnode --test\b/.test(testScript)) a.add('testTools', 'node:test');
    const manager = typeof pkg?.packageManager === 'string' ? pkg.packageManager.split('@')[0] : undefined;
    if (manager) a.add('packageManagers', manager);
  }
  if (top.has('tsconfig.json')) a.saw('tsconfig.json').add('languages', 'TypeScript');
  for (const [file, manager] of [
    ['package-lock.json', 'npm'],
    ['yarn.lock', 'yarn'],
    ['pnpm-lock.yaml', 'pnpm'],
    ['bun.lockb', 'bun'],
    ['bun.lock', 'bun'],
  ] as const) {
    if (top.has(file)) a.saw(file).add('packageManagers', manager);
  }
  if ([...top].some((f) => /^jest\.config\.(js|cjs|mjs|ts|json)$/.test(f))) a.add('testTools', 'jest');
  if ([...top].some((f) => /^vitest\.config\./.test(f))) a.add('testTools', 'vitest');
  if (top.has('.mocharc.json') || top.has('.mocharc.yml') || top.has('.mocharc.js')) a.add('testTools', 'mocha');
  if ([...top].some((f) => /^playwright\.config\./.test(f))) a.add('testTools', 'Playwright');

  // Python
  const pyFiles = ['pyproject.toml', 'requirements.txt', 'requirements-dev.txt', 'setup.py', 'setup.cfg', 'Pipfile', 'tox.ini', 'pytest.ini'].filter((f) =>
    top.has(f),
  );
  if (pyFiles.length) {
    a.add('languages', 'Python');
    let text = '';
    for (const f of pyFiles) {
      a.saw(f);
      text += `\n${(await read(f)) ?? ''}`;
    }
    const lower = text.toLowerCase();
    for (const [dep, name] of Object.entries(PYTHON_FRAMEWORKS))
      if (new RegExp(`(^|[^a-z0-9_-])${dep}([^a-z0-9_-]|$)`, 'm').test(lower)) a.add('frameworks', name);
    for (const [dep, name] of Object.entries(PYTHON_TESTS)) if (new RegExp(`(^|[^a-z0-9_-])${dep}([^a-z0-9_-]|$)`, 'm').test(lower)) a.add('testTools', name);
    if (top.has('pytest.ini') || /\[tool\.pytest/.test(text)) a.add('testTools', 'pytest');
    if (top.has('poetry.lock') || /\[tool\.poetry\]/.test(text)) a.add('packageManagers', 'poetry');
    else if (top.has('uv.lock')) a.add('packageManagers', 'uv');
    else if (top.has('Pipfile')) a.add('packageManagers', 'pipenv');
    else a.add('packageManagers', 'pip');
  }

  // Go
  if (top.has('go.mod')) {
    a.saw('go.mod').add('languages', 'Go').add('packageManagers', 'go modules').add('testTools', 'go test');
    const mod = (await read('go.mod')) ?? '';
    for (const [path, name] of Object.entries(GO_FRAMEWORKS)) if (mod.includes(path)) a.add('frameworks', name);
    if (mod.includes('github.com/stretchr/testify')) a.add('testTools', 'testify');
  }

  // Rust
  if (top.has('Cargo.toml')) {
    a.saw('Cargo.toml').add('languages', 'Rust').add('packageManagers', 'cargo').add('testTools', 'cargo test');
    const cargo = (await read('Cargo.toml')) ?? '';
    for (const [dep, name] of Object.entries(RUST_FRAMEWORKS)) if (new RegExp(`^\\s*${dep}\\s*=`, 'm').test(cargo)) a.add('frameworks', name);
  }

  // JVM
  if (top.has('pom.xml')) {
    a.saw('pom.xml').add('languages', 'Java').add('packageManagers', 'Maven');
    const pom = (await read('pom.xml')) ?? '';
    if (pom.includes('spring-boot')) a.add('frameworks', 'Spring Boot');
    if (pom.includes('junit')) a.add('testTools', 'JUnit');
  }
  const gradle = ['build.gradle', 'build.gradle.kts'].find((f) => top.has(f));
  if (gradle) {
    a.saw(gradle)
      .add('packageManagers', 'Gradle')
      .add('languages', gradle.endsWith('.kts') ? 'Kotlin' : 'Java');
    const text = (await read(gradle)) ?? '';
    if (text.includes('org.springframework.boot')) a.add('frameworks', 'Spring Boot');
    if (/junit/i.test(text)) a.add('testTools', 'JUnit');
    if (/android/i.test(text)) a.add('frameworks', 'Android');
  }

  // Others, by their manifest alone
  for (const [file, language, manager] of [
    ['Gemfile', 'Ruby', 'Bundler'],
    ['composer.json', 'PHP', 'Composer'],
    ['mix.exs', 'Elixir', 'Mix'],
    ['Package.swift', 'Swift', 'SwiftPM'],
    ['pubspec.yaml', 'Dart', 'pub'],
  ] as const) {
    if (top.has(file)) a.saw(file).add('languages', language).add('packageManagers', manager);
  }
  if ([...top].some((f) => f.endsWith('.csproj') || f.endsWith('.sln'))) a.add('languages', 'C#').add('packageManagers', 'NuGet');
  if (top.has('CMakeLists.txt')) a.saw('CMakeLists.txt').add('languages', 'C/C++').add('packageManagers', 'CMake');

  // CI
  const workflows = await readdir(join(dir, '.github', 'workflows')).catch(() => [] as string[]);
  const yml = workflows.filter((f) => /\.ya?ml$/.test(f)).sort();
  if (yml.length) {
    a.add('ci', 'GitHub Actions');
    for (const f of yml) a.saw(`.github/workflows/${f}`);
  }
  for (const [file, name] of [
    ['.gitlab-ci.yml', 'GitLab CI'],
    ['.travis.yml', 'Travis CI'],
    ['Jenkinsfile', 'Jenkins'],
    ['azure-pipelines.yml', 'Azure Pipelines'],
    ['.circleci', 'CircleCI'],
  ] as const) {
    if (top.has(file)) a.saw(file).add('ci', name);
  }

  // Containers
  if (top.has('Dockerfile') || [...top].some((f) => /^Dockerfile\./.test(f))) a.saw('Dockerfile').add('containers', 'Docker');
  if ([...top].some((f) => /^(docker-)?compose\.ya?ml$/.test(f))) a.add('containers', 'Docker Compose');

  return a.result();
}

/** The analysis as text for the model (and the user). */
export function formatAnalysis(r: ProjectAnalysis): string {
  const line = (label: string, items: string[]) => `- ${label}: ${items.length ? items.join(', ') : 'none found'}`;
  return [
    `Project analysis of ${r.dir}:`,
    line('Languages', r.languages),
    line('Frameworks', r.frameworks),
    line('Package managers', r.packageManagers),
    line('Test tools', r.testTools),
    line('CI/CD', r.ci),
    line('Containers', r.containers),
    `- Read: ${r.evidence.length ? r.evidence.join(', ') : 'no manifest files'}`,
  ].join('\n');
}

class Findings {
  private readonly sets = {
    languages: new Set<string>(),
    frameworks: new Set<string>(),
    packageManagers: new Set<string>(),
    testTools: new Set<string>(),
    ci: new Set<string>(),
    containers: new Set<string>(),
  };
  private readonly evidence = new Set<string>();

  constructor(private readonly dir: string) {}

  add(kind: keyof Findings['sets'], value: string): this {
    this.sets[kind].add(value);
    return this;
  }

  saw(file: string): this {
    this.evidence.add(file);
    return this;
  }

  result(): ProjectAnalysis {
    const list = (s: Set<string>) => [...s];
    return {
      dir: this.dir,
      languages: list(this.sets.languages),
      frameworks: list(this.sets.frameworks),
      packageManagers: list(this.sets.packageManagers),
      testTools: list(this.sets.testTools),
      ci: list(this.sets.ci),
      containers: list(this.sets.containers),
      evidence: list(this.evidence),
    };
  }
}

async function readSmall(file: string): Promise<string | undefined> {
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile() || info.size > MAX_MANIFEST_BYTES) return undefined;
  return readFile(file, 'utf8').catch(() => undefined);
}

function parseJson(text: string | undefined): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function record(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
