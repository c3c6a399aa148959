// A vitest reporter that ends a run with its slowest test files and each project's summed file time, so a CI log
// says where the suite's minutes go (the house keeps CI under 30 minutes).
import path from 'node:path';

const SHOWN = 30;
const root = path.resolve(import.meta.dirname, '..');

export default class SlowestFilesReporter {
  onTestRunEnd(testModules) {
    const rows = testModules.map((m) => ({
      file: path.relative(root, m.moduleId),
      project: m.project.name,
      seconds: (m.diagnostic().duration ?? 0) / 1000,
    }));
    if (rows.length === 0) return;
    const byProject = new Map();
    for (const r of rows) byProject.set(r.project, (byProject.get(r.project) ?? 0) + r.seconds);
    rows.sort((a, b) => b.seconds - a.seconds);
    const lines = [`\nSlowest ${Math.min(SHOWN, rows.length)} of ${rows.length} test files (wall seconds each):`];
    for (const r of rows.slice(0, SHOWN))
      lines.push(`  ${r.seconds.toFixed(1).padStart(7)}  ${r.project.padEnd(12)} ${r.file}`);
    lines.push('Summed file time by project:');
    for (const [project, seconds] of [...byProject].sort((a, b) => b[1] - a[1]))
      lines.push(`  ${seconds.toFixed(0).padStart(7)}  ${project}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
