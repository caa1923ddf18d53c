import Foundation
import StudyEngine
import StudyResearch
import Testing

@Suite("HLR training (Settles and Meeder's AdaGrad) on the real review log")
struct HLRTrainingTests {
    @Test("AdaGrad training lowers the paper's loss on what it trained on, and is deterministic")
    func hlrTrainingLearns() throws {
        let log = try Research.log.get()
        let examples = Evaluator.hlrExamples(log, before: log.entries.count)
        let trainer = HLRTrainer()
        let trained = trainer.train(examples)
        #expect(trained == trainer.train(examples))
        #expect(trainer.loss(examples, weights: trained) < trainer.loss(examples, weights: .zero))
        var onePass = trainer
        onePass.epochs = 1
        #expect(trainer.loss(examples, weights: trained) < trainer.loss(examples, weights: onePass.train(examples)))
    }

    @Test("one AdaGrad step by hand: the first step moves each weight by the learning rate against its gradient's sign")
    func hlrFirstStep() {
        var trainer = HLRTrainer()
        trainer.epochs = 1
        // p = 1 (clipped 0.9999), Δ = 2 days, no history: x = (1, 1, 1), ĥ = 1, p̂ = 0.25.
        let weights = trainer.train([HLRExample(right: 0, wrong: 0, elapsedDays: 2, recall: 1)])
        // Both loss terms want a longer half-life, so every weight grows by exactly 0.001.
        #expect(abs(weights.right - 0.001) < 1e-12)
        #expect(abs(weights.wrong - 0.001) < 1e-12)
        #expect(abs(weights.bias - 0.001) < 1e-12)
    }

    @Test("HLR's default weights are what training on the whole fixture log gives")
    func hlrDefaultsAreTrained() throws {
        let log = try Research.log.get()
        let trained = HLRTrainer().train(Evaluator.hlrExamples(log, before: log.entries.count))
        #expect(abs(trained.right - HLRWeights.defaults.right) < 1e-9)
        #expect(abs(trained.wrong - HLRWeights.defaults.wrong) < 1e-9)
        #expect(abs(trained.bias - HLRWeights.defaults.bias) < 1e-9)
    }
}
