// squad_analyze on real folders of four stacks (written to a temp dir): what it reports is read from the files.
import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { analyzeProject, formatAnalysis } from '../../src/core/squads/squadAnalyze';
import { nextCharacter, universeKey } from '../../src/core/squads/universes';

async function project(root: string, name: string, files: Record<string, string>): Promise<string> {
  const dir = join(root, name);
  for (const [file, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), text);
  }
  return dir;
}

describe('squad_analyze', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'baton-analyze-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('Node/TypeScript with jest', async () => {
    const dir = await project(root, 'node-ts', {
      'package.json': JSON.stringify({
        name: 'web',
        scripts: { test: 'jest --ci' },
        dependencies: { react: '^18', express: '^4' },
        devDependencies: { typescript: '^5', jest: '^29', '@types/jest': '^29' },
      }),
      'package-lock.json': '{}',
      'tsconfig.json': '{}',
      'jest.config.ts': 'export default {};',
    });
    const r = await analyzeProject(dir);
    assert.deepEqual(r.languages, ['JavaScript', 'TypeScript']);
    assert.deepEqual(r.frameworks, ['React', 'Express']);
    assert.deepEqual(r.testTools, ['jest']);
    assert.deepEqual(r.packageManagers, ['npm']);
    assert.deepEqual(r.ci, []);
  });

  it('Python with pytest', async () => {
    const dir = await project(root, 'python', {
      'pyproject.toml': '[project]\nname = "svc"\ndependencies = ["fastapi>=0.110", "pydantic"]\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
      'requirements-dev.txt': 'pytest==8.1\nhypothesis\n',
    });
    const r = await analyzeProject(dir);
    assert.deepEqual(r.languages, ['Python']);
    assert.deepEqual(r.frameworks, ['FastAPI']);
    assert.deepEqual(r.testTools.sort(), ['hypothesis', 'pytest']);
    assert.deepEqual(r.packageManagers, ['pip']);
  });

  it('Go', async () => {
    const dir = await project(root, 'go', {
      'go.mod': 'module example.com/api\n\ngo 1.22\n\nrequire (\n\tgithub.com/gin-gonic/gin v1.9.1\n\tgithub.com/stretchr/testify v1.9.0\n)\n',
      'main.go': 'package main\n',
      Dockerfile: 'FROM golang:1.22\n',
    });
    const r = await analyzeProject(dir);
    assert.deepEqual(r.languages, ['Go']);
    assert.deepEqual(r.frameworks, ['Gin']);
    assert.deepEqual(r.testTools, ['go test', 'testify']);
    assert.deepEqual(r.packageManagers, ['go modules']);
    assert.deepEqual(r.containers, ['Docker']);
  });

  it('a repository with a GitHub Actions workflow (and Rust)', async () => {
    const dir = await project(root, 'actions', {
      '.github/workflows/ci.yml': 'on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: cargo test\n',
      '.github/workflows/release.yaml': 'on: release\n',
      'Cargo.toml': '[package]\nname = "tool"\n\n[dependencies]\ntokio = { version = "1" }\n',
    });
    const r = await analyzeProject(dir);
    assert.deepEqual(r.ci, ['GitHub Actions']);
    assert.deepEqual(r.languages, ['Rust']);
    assert.deepEqual(r.frameworks, ['Tokio']);
    assert.deepEqual(r.testTools, ['cargo test']);
    assert.ok(r.evidence.includes('.github/workflows/ci.yml') && r.evidence.includes('.github/workflows/release.yaml'));
    assert.match(formatAnalysis(r), /CI\/CD: GitHub Actions/);
  });

  it('an empty folder reports nothing found', async () => {
    const dir = await project(root, 'empty', {});
    const text = formatAnalysis(await analyzeProject(dir));
    assert.match(text, /Languages: none found/);
  });

  it('character names: next unused of the universe, then numbered', () => {
    assert.equal(universeKey('Back to the Future'), 'back-to-the-future');
    assert.equal(universeKey('Muppets'), undefined);
    assert.equal(nextCharacter('ghostbusters', []), 'Venkman');
    assert.equal(nextCharacter('ghostbusters', ['venkman']), 'Stantz');
    const all = ['Venkman', 'Stantz', 'Spengler', 'Zeddemore', 'Barrett', 'Tully', 'Melnitz', 'Slimer'];
    assert.equal(nextCharacter('ghostbusters', all), 'Venkman-2');
  });
});
