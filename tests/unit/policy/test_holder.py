"""PolicySetHolder: the one owner of the policy set served. Requests are counted per engine across swaps;
a bundle activation keeps the local layers and a local reload keeps the bundles, whichever came last."""

from __future__ import annotations

import asyncio
from typing import cast

from hookd.policy.holder import PolicySetHolder
from hookd.policy.layers import SHADOW, USER_LAYER, Layer, Rank, layered
from hookd.testing import StaticEngine
from hookd.types import PolicySet
from support import eventually_async


def layer(name: str, rank: Rank = Rank.ORGANISATION, mode: str = "enforce") -> Layer:
    return Layer(name, rank, StaticEngine(), mode=mode)


def names(served: PolicySet) -> list[str]:
    return [layer.name for layer in served.layers]


def test_the_holder_counts_requests_per_engine_across_swaps() -> None:
    first, second, third = (layered([layer(USER_LAYER, Rank.USER)]) for _ in range(3))
    holder = PolicySetHolder(first)
    a, b = holder.acquire(), holder.acquire()
    assert holder.swap(second) is first
    c = holder.acquire()
    holder.swap(third)
    assert (a, b, c) == (first, first, second)
    assert [holder.in_use(e) for e in (first, second, third)] == [2, 1, 0]
    holder.release(a)
    holder.release(c)
    assert [holder.in_use(e) for e in (first, second, third)] == [1, 0, 0]
    holder.release(holder.acquire())
    holder.release(b)
    assert [holder.in_use(e) for e in (first, second, third)] == [0, 0, 0]


def test_a_bundle_activation_keeps_every_local_layer_even_a_shadow_that_stands_in_for_a_bundle() -> None:
    async def scenario() -> None:
        bundle = layer("acme")
        user = layer(USER_LAYER, Rank.USER)
        shadow = Layer("shadow", Rank.ORGANISATION, StaticEngine(), mode=SHADOW, replaces="acme")
        holder = PolicySetHolder(layered([bundle, user, shadow]), bundles=[bundle])
        newer = layer("acme")
        holder.serve_bundles([newer])
        assert names(holder.current) == ["acme", "shadow", USER_LAYER]
        current = holder.current
        assert current.layers[0] is newer and holder.local_layers() == (shadow, user)

    asyncio.run(scenario())


def test_a_local_reload_keeps_the_bundles_activated_while_its_layers_started() -> None:
    async def scenario() -> None:
        bundle, user = layer("acme"), layer(USER_LAYER, Rank.USER)
        holder = PolicySetHolder(layered([bundle, user]), bundles=[bundle])
        reloaded = layer(USER_LAYER, Rank.USER)  # loaded before the activation below, served after it
        other = layer("other")
        holder.serve_bundles([bundle, other])
        holder.serve_local([reloaded])
        current = holder.current
        assert [x.engine for x in current.layers] == [bundle.engine, other.engine, reloaded.engine]

    asyncio.run(scenario())


def test_retiring_a_replaced_set_closes_only_what_it_alone_held() -> None:
    async def scenario() -> None:
        bundle, user = layer("acme"), layer(USER_LAYER, Rank.USER)
        holder = PolicySetHolder(layered([bundle, user]), bundles=[bundle])
        holder.serve_bundles([layer("acme")])
        old = cast(StaticEngine, bundle.engine)
        await eventually_async(lambda: old.closed, what="the replaced bundle closed")
        assert not cast(StaticEngine, user.engine).closed  # handed over to the new set
        await holder.close()
        assert cast(StaticEngine, user.engine).closed

    asyncio.run(scenario())
