"""What the bundled cards teach: issue 13's corrections pinned, and the interview-next and llm-interview decks' shape.

Each test names the card or topic it guards. Expected facts come from the papers and PyTorch
(checked here where PyTorch can say it), not from the deck text itself.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from studytool.config import Settings
from studytool.decks.loader import load_decks
from studytool.decks.topics import load_topics
from studytool.problems import registry


@pytest.fixture(scope="module")
def decks(tmp_path_factory):
    return {deck.deck: deck for deck in load_decks(Settings(home=tmp_path_factory.mktemp("home")))}


@pytest.fixture(scope="module")
def cards(decks):
    return {card.id: card for deck in decks.values() for card in deck.cards}


TOPICS = {topic.id: topic for topic in load_topics()}


def text_of(card) -> str:
    """Everything a card shows: question, options, answer text, why."""
    body = card.body
    parts = [body.get("q", ""), body.get("statement", ""), body.get("opposite", ""), str(body.get("a", "")),
             *body.get("options", ()), card.why or ""]
    return "\n".join(parts)


def topic_text(topic_id: str) -> str:
    topic = TOPICS[topic_id]
    return "\n".join([topic.summary, *topic.formulas, *topic.mistakes])


# --- the second note, named honestly ------------------------------------------------------------


def test_the_second_note_is_named_for_what_it_is(decks):
    deck = decks["transformer-arch"]
    assert "cs336-architecture" not in decks and deck.formerly == ("cs336-architecture",)
    assert "《3 transformer架构》" in deck.source and "CS336" not in deck.title + deck.source
    assert not any(card.source.startswith("CS336") for d in decks.values() for card in d.cards)
    assert not any("cs336" in card.id for card in deck.cards)   # nor a card id (ln-formula-cs336 was one)
    assert "ln-formula-cs336" in next(card for card in deck.cards if card.id == "ln-notes-formula").formerly


# --- 1. the causal mask at inference --------------------------------------------------------------


def test_the_causal_mask_is_not_said_to_be_unneeded_at_inference():
    text = topic_text("causal-mask")
    assert "prefill" in text and "KV cache" in text   # several positions at once need it; one new query does not
    assert "推理时未来的词根本还没生成" not in text


def test_the_causal_mask_is_numbered_by_input_position_and_placed_in_every_decoder_block(cards):
    assert "第一个注意力" not in text_of(cards["mask-causal-where"])
    assert "每个 decoder block" in cards["mask-causal-where"].body["options"][0]
    assert "位置 i" in TOPICS["causal-mask"].summary and "预测第 i 个词时只能看第 0 到 i−1" not in topic_text("causal-mask")


# --- 2. residuals under the notes' Post-LN -------------------------------------------------------------


def test_a_zero_sublayer_gives_ln_x_under_post_ln_not_x(cards):
    card = cards["res-identity-fallback"]
    assert card.kind == "truefalse" and card.body["answer"] is False
    assert "LN(x + F(x))" in card.body["statement"] and "LN(x)" in card.body["opposite"]
    assert "post-pre-ln" in card.why


def test_residual_claims_say_they_hold_for_the_sum_or_pre_ln(cards):
    assert "LN(x)" in cards["res-why-add"].body["a"] and "Pre-LN" in cards["res-why-add"].body["a"]
    assert "Post-LN" in (cards["res-gradient-path"].why or "")
    summary = TOPICS["residual"].summary
    assert "LN(x + F(x))" in summary and "2002.04745" in summary and "post-pre-ln" in summary


def test_the_identity_fallback_really_fails_under_post_ln():
    torch = pytest.importorskip("torch")
    x = torch.tensor([[3.0, -1.0, 2.0, 8.0]])
    post_ln = torch.nn.LayerNorm(4)(x + torch.zeros_like(x))   # F ≡ 0
    assert not torch.allclose(post_ln, x)                      # LN(x) ≠ x
    assert torch.allclose(x + torch.zeros_like(x), x)          # the sum (and Pre-LN's x + F(LN(x))) is x


# --- 3. LayerNorm's epsilon -----------------------------------------------------------------------------------


def test_ln_formula_accepts_the_root_of_variance_plus_eps_and_names_the_notes_form(cards):
    answer = cards["ln-notes-formula"].body["a"]
    assert "√(σ² + ε)" in answer and "(σ + ε)" in answer and "笔记" in answer
    assert any("√(σ² + ε)" in formula for formula in TOPICS["layernorm"].formulas)


# --- 4. where the L² term takes over --------------------------------------------------------------------------


def test_the_block_crossover_is_6d_and_the_one_projection_card_says_so(cards):
    assert "6d" in (cards["gen-cost-crossover"].why or "") and "6d" in TOPICS["shapes-cost"].summary
    block = cards["gen-cost-block"].pose()
    assert block.answer == 6 * 512   # 2·L²·d = 4·L·d² + 2·L·d·4d at d = 512
    crossover = cards["gen-cost-crossover"].pose()
    assert crossover.answer == 512 and "主导" not in crossover.prompt


def test_cost_counts_are_small_enough_to_work_out_by_hand():
    generator = registry.get("attention_cost")
    for seed in range(200):
        for ask in ("scores", "projection"):
            assert generator.draw(np.random.default_rng(seed), ask=ask).answer < 10**7   # no 12-digit exercise


# --- 5, 6. fixed text of generated cards holds for every variant --------------------------------------------


def test_a_generated_cards_fixed_why_never_names_its_examples_drawn_values(decks):
    """A value pinned only in `example` is redrawn for every other showing: the why may not quote it."""
    for deck in decks.values():
        for card in deck.cards:
            if card.kind != "generated" or not card.why:
                continue
            drawn = {name: value for name, value in card.body.get("example", {}).items()
                     if name not in card.body.get("params", {}) and not isinstance(value, (list, dict))}
            for name, value in drawn.items():
                assert not re.search(rf"\b{re.escape(name)}\s*=\s*{re.escape(str(value))}\b", card.why), (card.key, name)


@pytest.mark.parametrize("card_id, words", [
    ("gen-pe-value", ["d=3", "只有 sin 没有配对的 cos"]),
    ("gen-tf-predict", ["目标是结束符 <eos>。"]),
    ("gen-ln-invariance", ["所以自测 Q2 与数值例答案相同"]),
    ("gen-bn-vs-ln-output", ["完全不同"]),
])
def test_variant_specific_words_left_the_fixed_why(cards, card_id, words):
    assert not any(word in (cards[card_id].why or "") for word in words)


def test_the_variant_specific_words_are_in_the_worked_solution():
    pe = registry.get("positional_encoding").draw(np.random.default_rng(0), d_model=5, pos=2, j=4, ask="value")
    assert "只有 sin" in pe.solution[-1]
    paired = registry.get("positional_encoding").draw(np.random.default_rng(0), d_model=6, pos=2, j=4, ask="value")
    assert "只有 sin" not in " ".join(paired.solution)
    tf = registry.get("teacher_forcing")
    last = tf.draw(np.random.default_rng(0), target=["我", "爱", "AI"], source="I love AI", t=3, ask="predict")
    first = tf.draw(np.random.default_rng(0), target=["我", "爱", "AI"], source="I love AI", t=0, ask="predict")
    assert "<eos>" in last.solution[-1] and "我" in first.solution[-1] and "<eos>" not in first.solution[-1]
    assert "编号" not in last.prompt   # its options are lettered; only sequence questions number their items


def test_the_padding_mask_cards_explain_right_and_left_padding(cards):
    where = cards["mask-padding-where"]
    assert "句尾" in where.body["q"] and "左侧" in where.why and "损失" in text_of(where)
    assert "左侧" in cards["mask-padding-encoder-only-mistake"].why
    assert "左侧" in TOPICS["padding-mask"].summary


# --- 7. facts -----------------------------------------------------------------------------------------------


def test_exposure_bias_remedies_change_training_and_beam_search_is_only_decoding(cards):
    answer = cards["exposure-bias"].body["a"]
    assert all(remedy in answer for remedy in ("scheduled sampling", "序列级训练", "professor forcing"))
    assert "beam search 只是解码" in answer


def test_batchnorm_of_one_sample_is_what_pytorch_does(cards):
    torch = pytest.importorskip("torch")
    bn = torch.nn.BatchNorm1d(2)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        bn(torch.tensor([[3.0, 7.0]]))
    out = bn.eval()(torch.tensor([[3.0, 7.0]]))
    assert torch.allclose(out, torch.tensor([[3.0, 7.0]]), atol=1e-4)
    card = cards["bn-batch-of-one-torch"]
    right = card.body["options"][ord(card.body["answer"]) - ord("A")]
    assert "报错" in right and "[3, 7]" in right and "bn-batch-of-one-vector" not in cards


def test_gpt1_was_post_ln_and_bert_has_learned_positions_segments_and_gelu():
    post_pre = topic_text("post-pre-ln")
    assert "GPT-1" in post_pre and "GPT-2" in post_pre
    bert = topic_text("bert")
    assert "GELU" in bert and "段嵌入" in bert and "学出来的位置嵌入" in bert


def test_the_encoder_topic_keeps_n_for_the_length():
    assert not any("Block_N" in formula for formula in TOPICS["encoder"].formulas)


def test_one_letter_for_the_head_count_and_one_word_for_shape(decks):
    for card in (card for deck in decks.values() for card in deck.cards):
        assert not re.search(r"\bM\s*=\s*8|/\s*M\b", text_of(card)), card.key
        assert "shape" not in text_of(card) + card.source, card.key   # 形状, as the rest of the text


# --- 8. trivia became why-questions ---------------------------------------------------------------------------


def test_trivia_cards_are_gone(cards):
    gone = ("lecture-split", "post-pre-readings", "s2s-lineage", "residual-ab", "pe-odd-denominator",
            "attn-library", "add-norm-roles")
    assert not any(card_id in cards for card_id in gone)
    for why in ("post-pre-xiong-finding", "s2s-transformer-change", "residual-add-not-concat", "attn-k-vs-v",
                "add-norm-highway-limit"):
        assert cards[why].why and "第几页" not in cards[why].body["q"]   # a reason to explain, not a page to recall


# --- the interview-next deck ----------------------------------------------------------------------------------

NEW_TOPICS = ("qk-projections", "attention-vs-rnn", "kv-cache", "model-families", "embedding-tying", "model-size",
              "training-recipe", "additive-attention", "modern-decoder", "decoding")


def test_every_new_topic_has_an_explain_entry_and_two_cards(decks):
    deck = decks["interview-next"]
    for topic_id in NEW_TOPICS:
        assert TOPICS[topic_id].group == "beyond" and TOPICS[topic_id].mistakes
        assert sum(card.topic == topic_id for card in deck.cards) >= 2, topic_id
    assert {card.topic for card in deck.cards} == set(NEW_TOPICS)


def test_the_new_deck_computes_its_numbers_with_five_generators(decks):
    generated = [card for card in decks["interview-next"].cards if card.kind == "generated"]
    assert {card.body["generator"] for card in generated} >= {
        "kv_cache", "tied_embeddings", "transformer_params", "warmup_lr", "temperature_softmax", "rms_norm",
        "rope_score"}
    for card in generated:
        answers = {str(card.pose(seed).answer) for seed in range(100)}
        small = registry.get(card.body["generator"]).small_answer_space(card.body.get("params", {}))
        assert len(answers) >= (2 if small else 10), card.key   # drawn, not memorisable (or few by nature, and says why)


@pytest.mark.parametrize("card_id, expected", [
    ("gen-kv-total", 2 * 12 * 1 * 1024 * 768 * 2 / 2**20),      # GPT-2 small, fp16, 1024 tokens: 36 MiB
    ("gen-tie-encdec", 2 * 37000 * 512),                        # 3 matrices -> 1
    ("gen-tie-decoder", 50257 * 768),                           # GPT-2: 2 -> 1
    ("gen-model-base", 63_121_544 / 1e6),                       # nn.Transformer 44,140,544 + 37000·512 + 37000
    ("gen-warmup-peak", 1e4 / (512 * 4000) ** 0.5),             # (d · warmup)^-0.5, in 1e-4
    ("gen-rope-score", -0.8414709848078965),                    # q·R_1 k = (1, 0)·(−sin 1, cos 1) = −sin 1
])
def test_the_new_decks_pinned_examples(cards, card_id, expected):
    assert cards[card_id].pose().answer == pytest.approx(expected)


def test_the_modern_decoders_swiglu_width_keeps_the_ffns_parameters():
    from studytool import engine

    d = 4096
    relu = engine.count_params("ffn", d_model=d, d_ff=4 * d, bias=False)
    swiglu = engine.count_params("swiglu_ffn", d_model=d, d_ff=8 * d // 3, bias=False)
    assert abs(swiglu - relu) / relu < 1e-3   # d_ff = 8d/3 (LLaMA rounds 10,922 up to 11,008)


# --- the llm-interview deck (issue 22 item 1): the LLM era, beyond the notes ----------------------------------------

LLM_TOPICS = ("gqa", "flops", "training-memory", "flash-attention", "tokenization", "nucleus-sampling", "llm-params",
              "scaling-laws", "moe", "mixed-precision", "lora", "speculative-decoding", "long-context",
              "paged-attention", "quantization", "alignment")


def test_the_llm_deck_says_it_goes_beyond_the_notes_and_covers_every_topic(decks):
    deck = decks["llm-interview"]
    assert deck.source.startswith("超出笔记") and "CS336" in deck.source
    generated = [card for card in deck.cards if card.kind == "generated"]
    assert len(deck.cards) >= 120 and len(generated) >= 20
    assert {card.topic for card in deck.cards} == set(LLM_TOPICS)
    for topic_id in LLM_TOPICS:   # a recall, choice or true/false card beside the numbers on every topic
        assert TOPICS[topic_id].group == "llm" and TOPICS[topic_id].mistakes and TOPICS[topic_id].generator
        assert any(card.topic == topic_id and card.kind in ("recall", "choice", "truefalse", "order")
                   for card in deck.cards), topic_id


@pytest.mark.parametrize("card_id, expected", [
    ("gen-gqa-per-token", 2 * 32 * 8 * 128 * 2 / 1024),        # Llama-3-8B, bf16: 128 KiB a token
    ("gen-gqa-total", 2 * 32 * 8 * 128 * 2 * 4 * 8192 / 2**30),  # ... four sequences of 8192: 4 GiB
    ("gen-gqa-saved", 2 * 32 * (32 - 8) * 128 * 2 * 8192 / 2**30),   # against 32 K/V heads: 3 GiB saved
    ("gen-params-gpt2", 124_439_808),                          # GPT-2 small
])
def test_the_llm_decks_pinned_examples(cards, card_id, expected):
    assert cards[card_id].pose().answer == pytest.approx(expected)


def test_the_llm_decks_stated_numbers_are_the_formulas():
    # the fixed cards quote these; each is recomputed here from its definition
    assert (2 - 2**-10) * 2**15 == 65504                       # fp16's largest finite value
    assert 2**-7 == 0.0078125                                 # bf16's machine epsilon (8 significand bits)
    assert 1.75 * 2**8 == 448 and 1.75 * 2**15 == 57344       # E4M3 and E5M2 maxima
    assert round(6 * 175e9 * 300e9 / 1e23, 2) == 3.15          # GPT-3's 6ND
    assert round((1 - 0.8**5) / 0.2, 2) == 3.36                # speculative decoding, alpha 0.8, gamma 4
    assert 512 + 64 == 576 and 2 * 128 * 128 == 32768          # MLA's cache against MHA's, DeepSeek-V2
    assert round(math.sqrt(5.76e23 / 120) / 1e9, 1) == 69.3     # Chinchilla's budget: N about 70B
# --- issue 22: the last corrections ---------------------------------------------------------------------------


def test_a_shared_projection_bounds_s_ij_by_the_geometric_mean_not_by_s_ii(cards):
    x = np.array([[1.0, 0.0], [3.0, 1.0]])             # token 1 is longer than token 0
    s = x @ x.T                                        # Q = K = X (W = I)
    assert s[0, 1] > s[0, 0]                           # s_ii is no upper bound of its row
    assert abs(s[0, 1]) <= np.sqrt(s[0, 0] * s[1, 1])  # Cauchy-Schwarz is
    answer = cards["qk-why-separate"].body["a"]
    assert "√(s_ii·s_jj)" in answer and "该行的一个上界" not in answer and "不是 s_ii 本身" in answer


def test_label_smoothing_gives_the_right_word_one_minus_eps_plus_eps_over_v_everywhere(decks):
    torch = pytest.importorskip("torch")
    eps, vocab, right = 0.1, 7, 3
    logits = torch.randn(1, vocab, generator=torch.Generator().manual_seed(0))
    target = torch.full((1, vocab), eps / vocab)
    target[0, right] = 1 - eps + eps / vocab
    torch_loss = torch.nn.functional.cross_entropy(logits, torch.tensor([right]), label_smoothing=eps)
    assert torch.allclose(torch_loss, -(target * logits.log_softmax(-1)).sum())
    texts = [text_of(card) for deck in decks.values() for card in deck.cards] + [topic_text(t) for t in TOPICS]
    said = [text for text in texts if re.search("label smoothing|标签平滑|label_smoothing", text)]
    assert said
    for text in said:   # every "1 − ε" is the mixture's weight "(1 − ε)·" or the right word's 1 − ε + ε/V
        for match in re.finditer(r"\(?1 − ε\)?", text):
            rest = text[match.end():]
            assert match.group().startswith("(") or rest.startswith(" + ε/V"), text[match.start():match.end() + 20]


def test_non_autoregressive_decoders_are_not_denied(cards):
    card = cards["s2s-no-fixed-softmax"]
    assert "一步一步产生" not in card.body["statement"] + card.body["opposite"]
    assert "非自回归" in card.why and "非自回归" in topic_text("seq2seq")


def test_the_whole_models_output_layer_is_said_to_have_its_bias():
    generator = registry.get("transformer_params")
    for seed in range(20):
        for ask in ("tied", "untied"):
            variant = generator.draw(np.random.default_rng(seed), ask=ask)
            assert "输出层是带偏置的线性层" in variant.prompt


def test_pytorch_transformer_puts_a_final_layernorm_on_each_stack_whatever_norm_first():
    torch = pytest.importorskip("torch")
    for norm_first in (False, True):
        model = torch.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                     dim_feedforward=16, norm_first=norm_first)
        assert isinstance(model.encoder.norm, torch.nn.LayerNorm) and isinstance(model.decoder.norm, torch.nn.LayerNorm)


def test_the_final_layernorm_is_taught_one_way_the_paper_none_nn_transformer_one_per_stack(cards):
    for text in (cards["gen-post-vs-pre-ln"].why, topic_text("post-pre-ln"), topic_text("model-size"),
                 cards["gen-model-base"].why):
        assert "nn.Transformer" in text and "原论文" in text, text
    stack = registry.get("param_count").draw(np.random.default_rng(0), ask="stack", convention="full")
    model = registry.get("transformer_params").draw(np.random.default_rng(0), ask="tied")
    norms = registry.get("pre_post_ln").draw(np.random.default_rng(0), ask="count", norm_first=False)
    for said in (stack.prompt, model.prompt, norms.prompt + " ".join(norms.solution)):
        assert "nn.Transformer" in said and ("原论文" in said or "不像 nn.Transformer" in said), said


def test_batchnorm_of_one_is_all_zeros_only_for_a_single_vector(cards):
    torch = pytest.importorskip("torch")
    sentence = torch.randn(1, 3, 5, generator=torch.Generator().manual_seed(0))   # [1, C, L]: one sentence
    assert torch.nn.BatchNorm1d(3)(sentence).abs().sum() > 1   # L values per channel: no error, not zeros
    card = cards["bn-batch-of-one"]
    assert "[1, C]" in card.body["q"] and "[1, L, C]" in card.why
    assert "[1, C]" in topic_text("bn-vs-ln") and "batch = 1 时方差为 0" not in topic_text("bn-vs-ln")


def test_positions_are_added_once_only_for_additive_absolute_encodings(cards):
    card = cards["enc-pos-first-layer"]
    assert "绝对位置编码" in card.body["statement"] and "RoPE" in card.why
    assert "RoPE" in topic_text("encoder")


def test_ln_formula_writes_eps_inside_the_root(cards):
    answer = cards["ln-formula"].body["a"]
    assert "√(σ² + ε)" in answer and "加极小的 ε" not in answer


def test_d_ff_is_the_papers_choice(cards):
    assert "原论文" in cards["ffn-dff"].body["q"] and "超参数" in cards["ffn-dff"].why


def test_the_causal_mask_topic_puts_s_at_position_0():
    summary = TOPICS["causal-mask"].summary
    assert "位置 0 上是 <s>" in summary and "<s> 之后的第 i 个词" not in summary


def test_the_pe_index_ranges_sit_on_their_own_lines():
    from studytool import engine

    d = 5
    table = engine.positional_encoding(3, d)
    sin_columns = range(0, d, 2)   # i = 0 .. ⌈d/2⌉ − 1
    assert len(sin_columns) == -(-d // 2) and len(range(1, d, 2)) == d // 2
    assert np.allclose(table[:, 4], np.sin(np.arange(3) / 10000 ** (4 / d)))   # the last column of odd d: sin
    sin_line, cos_line = TOPICS["positional-encoding"].formulas[:2]
    assert "sin" in sin_line and "⌈d/2⌉ − 1" in sin_line
    assert "cos" in cos_line and "⌊d/2⌋ − 1" in cos_line and "⌈d/2⌉" not in cos_line


def test_quadratic_memory_is_said_of_naive_attention(cards):
    card = cards["attention-memory-quadratic"]
    assert "朴素" in card.body["q"] and "FlashAttention" in card.why


# --- issue 22: what the notes teach and had no card for -------------------------------------------------------


def test_powernorm_and_detection_as_seq2seq_have_cards_and_topic_text(cards):
    assert {"powernorm-why", "powernorm-how", "s2s-detection", "s2s-detection-set"} <= set(cards)
    assert all("2003.07845" in cards[card_id].source for card_id in ("powernorm-why", "powernorm-how"))
    assert "PowerNorm" in topic_text("bn-vs-ln") and "DETR" in topic_text("seq2seq")


def test_a_set_loss_after_bipartite_matching_ignores_the_order_of_the_predictions():
    from itertools import permutations

    rng = np.random.default_rng(0)
    truth, predicted = rng.random((3, 4)), rng.random((5, 4))   # 3 objects, 5 slots, box vectors

    def set_loss(slots):   # the best one-to-one matching, found by trying every assignment of slots to objects
        return min(sum(np.abs(truth[i] - slots[j]).sum() for i, j in enumerate(chosen))
                   for chosen in permutations(range(len(slots)), len(truth)))

    in_order = [np.abs(truth[i] - predicted[i]).sum() for i in range(3)]
    shuffled = predicted[rng.permutation(5)]
    assert set_loss(predicted) == pytest.approx(set_loss(shuffled))
    assert set_loss(predicted) <= sum(in_order)


# --- issue 22: near-duplicates merged (progress follows) or told apart ----------------------------------------


@pytest.mark.parametrize("kept, gone", [("gen-emb-params", "emb-params-formula"),
                                        ("mask-zero-not-enough", "mask-zero-vector"),
                                        ("shapes-xattn-output", "shapes-qkv-per-head")])
def test_a_merged_card_takes_the_others_progress(cards, kept, gone):
    assert gone not in cards and gone in cards[kept].formerly


def test_the_merged_cards_keep_what_the_other_taught(cards):
    assert "V × d_model" in cards["gen-emb-params"].why and "面试" in cards["gen-emb-params"].why
    assert "[0.2447, 0.6652, 0.0900]" in cards["mask-zero-not-enough"].why
    torch = pytest.importorskip("torch")
    assert torch.allclose(torch.softmax(torch.tensor([1.0, 2.0, 0.0]), 0), torch.tensor([0.2447, 0.6652, 0.0900]),
                          atol=1e-4)


def test_the_pairs_told_apart_ask_different_things(cards):
    assert cards["mh-dk"].kind == "choice" and "d_model / h" in cards["mh-dk"].body["q"]
    assert "付出" in cards["mh-no-extra-params"].body["q"] and "params-multihead-free" in cards["mh-no-extra-params"].body["q"]
    assert "架构笔记" in cards["ln-notes-formula"].body["q"] and "讲义" not in cards["ln-notes-formula"].body["q"]
    xattn = cards["shapes-xattn-output"].pose(0)
    assert xattn.answer == (1, xattn.params["tgt_len"], xattn.params["d_model"])   # the query's length, not the memory's


def test_no_generated_question_nests_full_width_brackets(decks):
    """The review's nested brackets were in a generated prompt (batch_norm's LayerNorm rows): every bundled
    generated card is posed at each level and its prompt, solution and hints read for them."""
    from studytool.decks.glossary import nested_brackets

    for card in (card for deck in decks.values() for card in deck.cards if card.kind == "generated"):
        for variant in (card.pose(), *(card.pose(seed, level) for seed in range(3) for level in (1, 2, 3))):
            for text in (variant.prompt, *variant.solution, *(hint.message for hint in variant.hints)):
                assert not nested_brackets(text), (card.key, text)
