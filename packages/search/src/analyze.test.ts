import { describe, expect, it } from "vitest";
import { fieldTerms, nameWords, term, words } from "./analyze.js";

describe("analyze", () => {
  it("splits words on everything but letters and digits, dropping apostrophes", () => {
    expect(words("fill-in a_PDF form (v2.1), user's don’t")).toEqual([
      "fill",
      "in",
      "a",
      "PDF",
      "form",
      "v2",
      "1",
      "users",
      "dont",
    ]);
    expect(words("café naïve 東京 k8s")).toEqual(["café", "naïve", "東京", "k8s"]);
  });

  it("splits names on camelCase and keeps the whole word", () => {
    expect(nameWords("pdfFormFiller")).toEqual(["pdf", "Form", "Filler", "pdfFormFiller"]);
    expect(nameWords("XMLParser-v2")).toEqual(["XML", "Parser", "XMLParser", "v2"]);
    expect(nameWords("skill-creator")).toEqual(["skill", "creator"]);
  });

  it("stems English words, drops stop words and passes other scripts through", () => {
    expect(["formatting", "formats", "format"].map(term)).toEqual(["format", "format", "format"]);
    expect(term("The")).toBeNull();
    expect(term("shell")).toBe("shell");
    expect(term("東京")).toBe("東京");
    expect(term("K8s")).toBe("k8s");
    expect(fieldTerms("Deploying the Apps", "description")).toEqual(["deploy", "app"]);
  });
});
