package io.jkompute.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ResolvedModule;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The README's claim that jkompute-cuda needs only SLF4J: the module resolves from its own classes and the SLF4J jar,
 * with no Vulkan core (and so no LWJGL) on the module path.
 */
class ModuleBoundaryTest {
    @Test
    void resolvesWithoutTheVulkanCore() throws Exception {
        Path cuda = Path.of(GpuArray.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path slf4j = Path.of(org.slf4j.Logger.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        ModuleFinder finder = ModuleFinder.of(cuda, slf4j);
        Configuration cf = ModuleLayer.boot().configuration().resolve(finder, ModuleFinder.of(), Set.of("io.jkompute.cuda"));
        Set<String> resolved = cf.modules().stream().map(ResolvedModule::name).collect(Collectors.toSet());
        assertTrue(resolved.contains("io.jkompute.cuda"));
        assertFalse(resolved.contains("io.jkompute.core"), "the Vulkan core must not be required: " + resolved);
        ModuleDescriptor d = finder.find("io.jkompute.cuda").orElseThrow().descriptor();
        ModuleDescriptor.Requires core = d.requires().stream().filter(r -> r.name().equals("io.jkompute.core")).findFirst().orElseThrow();
        assertEquals(Set.of(ModuleDescriptor.Requires.Modifier.STATIC), core.modifiers());
        assertEquals(Set.of("io.jkompute.cuda"), d.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()),
                "only the API package is exported");
    }

    @Test
    void cudaArrayInterfaceTypeStrings() {
        assertEquals("<f4", GpuArray.typestr(DType.FLOAT32));
        assertEquals("|b1", GpuArray.typestr(DType.BOOL));
        assertEquals("<u8", GpuArray.typestr(DType.UINT64));
        assertEquals("<c16", GpuArray.typestr(DType.COMPLEX128));
        assertEquals("<f2", GpuArray.typestr(DType.FLOAT16));
    }

    @Test
    void uint64FillOf2To63KeepsTheTopBit() {
        // (long) 2^63 saturates to 0x7FFF...F; the element must hold 0x8000...0
        assertEquals(Long.MIN_VALUE, GpuArray.element(DType.UINT64, 0x1p63, 0).get(java.lang.foreign.ValueLayout.JAVA_LONG, 0));
        assertEquals(-1L, GpuArray.element(DType.UINT64, 0x1p64 - 2048, 0).get(java.lang.foreign.ValueLayout.JAVA_LONG, 0) | 2047);
        assertEquals(1, GpuArray.element(DType.BOOL, 5L).get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
    }

    @Test
    void poolSizeClasses() {
        assertEquals(512, MemoryPool.sizeClass(1));
        assertEquals(1 << 20, MemoryPool.sizeClass((1 << 20) - 3));
        assertEquals((1L << 30), MemoryPool.sizeClass(1L << 30));
        assertEquals((1L << 30) + (1L << 27), MemoryPool.sizeClass((1L << 30) + 1));
    }

    @Test
    void everyPublicReductionHasAKernelOperation() {
        for (Reduction r : Reduction.values()) {
            assertEquals(r.name(), io.jkompute.cuda.internal.ReductionKernel.Op.valueOf(r.name()).name());
        }
        assertEquals(Reduction.values().length, io.jkompute.cuda.internal.ReductionKernel.Op.values().length);
    }
}
