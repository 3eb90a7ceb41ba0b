import { describe, expect, it } from "vitest";
import { releasePlatforms } from "../../../src/cli/release/release-platform.js";

describe("releasePlatforms (--platforms)", () => {
  it.each([
    ["linux_amd64", ["linux_amd64"]],
    ["linux_amd64, windows_amd64", ["linux_amd64", "windows_amd64"]],
    ["darwin_amd64,linux_arm64,darwin_amd64", ["darwin_amd64", "linux_arm64"]],
  ])("reads %j as %j", (list, expected) => {
    expect(releasePlatforms(list).map((platform) => platform.name)).toEqual(expected);
  });

  it.each([
    ["", '--platforms "" names no platform'],
    [" , ", '--platforms " , " names no platform'],
    ["linux_amd64,darwin_arm64", '--platforms names "darwin_arm64": expected one of linux_amd64, linux_arm64, darwin_amd64, windows_amd64'],
    ["linux-amd64", '--platforms names "linux-amd64"'],
  ])("rejects %j, naming it", (list, message) => {
    expect(() => releasePlatforms(list)).toThrow(message);
  });

  it("names the executable of Windows with .exe and the others without", () => {
    expect(releasePlatforms("windows_amd64,linux_arm64").map((platform) => platform.executableSuffix)).toEqual([".exe", ""]);
  });
});
