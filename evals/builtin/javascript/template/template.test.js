import assert from "node:assert/strict";
import { test } from "node:test";
import { render } from "./template.js";

test("a name", () => assert.equal(render("Hello {{name}}!", { name: "Ada" }), "Hello Ada!"));
test("paths and spaces", () =>
  assert.equal(
    render("{{ user.first }} {{user.last}}", { user: { first: "Ada", last: "Lovelace" } }),
    "Ada Lovelace",
  ));
test("missing values", () => assert.equal(render("{{missing}}|{{a.b.c}}", { a: {} }), "|"));
test("zero", () => assert.equal(render("{{n}} items", { n: 0 }), "0 items"));
test("an escaped brace", () => assert.equal(render("\\{{name}}", { name: "x" }), "{{name}}"));
