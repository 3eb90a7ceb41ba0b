import { describe, expect, it } from "vitest";
import { releasePlatforms } from "../../../src/cli/release/release-platform.js";

describe("releasePlatforms (--platforms)", () => {
  it.each([
    ["linux_amd64", ["linux_amd64"]],
    ["linux_amd64, windows_amd64", ["linux_amd64", "windows_amd64"]],
    ["darwin_amd64,linux_arm64,darwin_amd64", ["darwin_amd64", "linux_arm64"]],
    ["darwin_arm64", ["darwin_arm64"]],
  ])("reads %j as %j", (list, expected) => {
    expect(releasePlatforms(list).map((platform) => platform.name)).toEqual(expected);
  });

  it.each([
    ["", '--platforms "" names no platform'],
    [" , ", '--platforms " , " names no platform'],
    ["linux_amd64,freebsd_amd64", '--platforms names "freebsd_amd64": expected one of linux_amd64, linux_arm64, darwin_amd64, darwin_arm64, windows_amd64'],
    ["linux-amd64", '--platforms names "linux-amd64"'],
  ])("rejects %j, naming it", (list, message) => {
    expect(() => releasePlatforms(list)).toThrow(message);
  });

  it("names the executable of Windows with .exe and the others without", () => {
    expect(releasePlatforms("windows_amd64,linux_arm64").map((platform) => platform.executableSuffix)).toEqual([".exe", ""]);
  });

  it("takes every platform's Bun from its npm package, pinned by integrity, the x86-64 ones Bun's baseline build", () => {
    for (const platform of releasePlatforms("linux_amd64,linux_arm64,darwin_amd64,darwin_arm64,windows_amd64")) {
      expect(platform.bunPackage).toMatch(/^@oven\/bun-(linux|darwin|windows)-(x64-baseline|aarch64)$/);
      expect(platform.bunIntegrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
      expect(platform.bunTarget.replace("aarch64", "arm64")).toBe(platform.bunPackage.replace("@oven/", "").replace("aarch64", "arm64"));
    }
  });
});
