import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PathError } from "../../src/safety/paths.js";
import { dataTools } from "../../src/tools/data.js";
import { ReadTracker } from "../../src/tools/fileText.js";
import { ToolError } from "../../src/tools/toolError.js";
import type { AnyTool, ToolContext } from "../../src/tools/types.js";
import { tempDir } from "../helpers/temp.js";
import { toolContext } from "../helpers/tools.js";

let workspace: string;
let ctx: ToolContext;

function call(name: string, args: Record<string, unknown>, context = ctx) {
  const tool: AnyTool = dataTools.find((candidate) => candidate.name === name)!;
  return tool.execute(tool.schema.parse(args), context);
}

const read = (file: string) => readFileSync(path.join(workspace, file), "utf8");

beforeEach(() => {
  workspace = tempDir("cairn-data-");
  ctx = toolContext(workspace);
});
afterEach(() => rmSync(workspace, { recursive: true, force: true }));

const sample = { name: "cairn", version: 2, tags: ["a", "b"], nested: { on: true, ratio: 0.5, none: null } };

describe("data tools", () => {
  it("has the six tools of the data family", () => {
    expect(dataTools.map((tool) => tool.name)).toEqual([
      "read_json",
      "write_json",
      "read_yaml",
      "write_yaml",
      "read_ini",
      "write_ini",
    ]);
  });

  it.each(["json", "yaml"])("round-trips %s, creating folders, leaving no temporary file", async (format) => {
    const file = `config/deep/settings.${format}`;
    const written = await call(`write_${format}`, { path: file, data: sample });
    expect(written.text).toMatch(/^Created config\/deep\/settings\.\w+ \(\d+ bytes\)\.$/);
    const back = await call(`read_${format}`, { path: file });
    expect(back.data).toEqual({ kind: "data_read", path: file, value: sample });
    expect(JSON.parse(back.text)).toEqual(sample);
    expect(readdirSync(path.join(workspace, "config/deep"))).toEqual([`settings.${format}`]);
  });

  it("writes pretty-printed JSON and YAML", async () => {
    await call("write_json", { path: "a.json", data: { a: [1] } });
    expect(read("a.json")).toBe('{\n  "a": [\n    1\n  ]\n}\n');
    await call("write_yaml", { path: "a.yaml", data: { a: [1], b: { c: "d" } } });
    expect(read("a.yaml")).toBe("a:\n  - 1\nb:\n  c: d\n");
  });

  it("keeps an existing JSON file's indentation, final newline and permissions", async () => {
    writeFileSync(path.join(workspace, "tabs.json"), '{\n\t"x": 1\n}', { mode: 0o600 });
    const written = await call("write_json", { path: "tabs.json", data: { x: 2, y: [true] } });
    expect(written.text).toMatch(/^Wrote tabs\.json/);
    expect(read("tabs.json")).toBe('{\n\t"x": 2,\n\t"y": [\n\t\ttrue\n\t]\n}');
    expect(statSync(path.join(workspace, "tabs.json")).mode & 0o777).toBe(0o600);
    writeFileSync(path.join(workspace, "four.json"), '{\n    "x": 1\n}\n');
    await call("write_json", { path: "four.json", data: { x: { y: 1 } } });
    expect(read("four.json")).toBe('{\n    "x": {\n        "y": 1\n    }\n}\n');
  });

  it("round-trips INI with sections", async () => {
    const data = { top: "level", server: { host: "localhost", port: "8080" }, flags: { debug: true } };
    await call("write_ini", { path: "app.ini", data });
    expect(read("app.ini")).toContain("[server]\nhost = localhost\nport = 8080\n");
    expect((await call("read_ini", { path: "app.ini" })).data).toEqual({
      kind: "data_read",
      path: "app.ini",
      value: data,
    });
  });

  it("refuses INI data that is not an object", async () => {
    await expect(call("write_ini", { path: "x.ini", data: [1, 2] })).rejects.toBeInstanceOf(ToolError);
  });

  it("accepts data sent as a JSON string", async () => {
    await call("write_json", { path: "s.json", data: '{"from": "string"}' });
    expect(JSON.parse(read("s.json"))).toEqual({ from: "string" });
  });

  it("reports invalid JSON and YAML as tool errors", async () => {
    writeFileSync(path.join(workspace, "bad.json"), '{"a": 1,,, "b" ]]');
    writeFileSync(path.join(workspace, "bad.yaml"), "a: [1, 2\nb: : :\n");
    await expect(call("read_json", { path: "bad.json" })).rejects.toThrow(/Invalid JSON/);
    await expect(call("read_yaml", { path: "bad.yaml" })).rejects.toThrow(/Invalid YAML/);
    await expect(call("read_json", { path: "missing.json" })).rejects.toThrow(/does not exist/);
  });

  it("reads JSON with comments and trailing commas leniently, and says so", async () => {
    writeFileSync(path.join(workspace, "tsconfig.json"), '{\n  // strict mode\n  "strict": true,\n}\n');
    const result = await call("read_json", { path: "tsconfig.json" });
    expect(result.text).toMatch(/^Not strict JSON .*read leniently\./);
    expect(result.data).toEqual({ kind: "data_read", path: "tsconfig.json", value: { strict: true } });
  });

  it("shows every document of a multi-document YAML file", async () => {
    writeFileSync(path.join(workspace, "multi.yaml"), "a: 1\n---\nb: 2\n");
    const result = await call("read_yaml", { path: "multi.yaml" });
    expect(result.text).toMatch(/^The file holds 2 YAML documents/);
    expect(result.data).toEqual({ kind: "data_read", path: "multi.yaml", value: [{ a: 1 }, { b: 2 }] });
  });

  it("refuses paths outside the workspace and writes into .git", async () => {
    mkdirSync(path.join(workspace, ".git"));
    await expect(call("write_json", { path: "../out.json", data: {} })).rejects.toBeInstanceOf(PathError);
    await expect(call("write_json", { path: ".git/config.json", data: {} })).rejects.toThrow(/inside \.git/);
  });
});

describe("data writers as file writers", () => {
  it("report the file they changed, so it counts among a run's changed files", async () => {
    const output = await call("write_json", { path: "conf/app.json", data: { a: 1 } });
    expect(output.changedFiles).toEqual(["conf/app.json"]);
  });

  it("refuse to overwrite a file changed on disk since it was read", async () => {
    const tracked = { ...ctx, reads: new ReadTracker() };
    writeFileSync(path.join(workspace, "app.json"), '{"a": 1}\n');
    await call("read_json", { path: "app.json" }, tracked);
    await new Promise((resolve) => setTimeout(resolve, 20));
    writeFileSync(path.join(workspace, "app.json"), '{"a": 2, "by": "hand"}\n');
    await expect(call("write_json", { path: "app.json", data: { a: 3 } }, tracked)).rejects.toThrow(
      /changed since/,
    );
    expect(read("app.json")).toContain("by");
  });
});
