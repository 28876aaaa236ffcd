package io.jkompute.cli;

import io.jkompute.DeviceProperties;
import io.jkompute.Manager;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code jkompute devices}: every Vulkan device with its type, memory, limits and features. */
@Command(name = "devices", description = "List Vulkan devices: name, type, memory, compute limits, features, queues.")
final class DevicesCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        List<DeviceProperties> devices = Manager.listDevices();
        if (devices.isEmpty()) {
            System.out.println("no Vulkan devices found");
            return 1;
        }
        for (DeviceProperties d : devices) {
            DeviceProperties.Limits l = d.limits();
            DeviceProperties.Features f = d.features();
            System.out.printf("#%d %s%n", d.index(), d.name());
            System.out.printf("   type %s, Vulkan %s, driver %s, vendor 0x%04x, uuid %s%n", d.type(), d.apiVersion(),
                    d.driverVersion(), d.vendorId(), d.deviceUuidHex());
            System.out.printf("   device-local memory %.1f GiB%n", d.deviceLocalBytes() / (double) (1L << 30));
            System.out.printf("   max workgroups %d x %d x %d, max workgroup size %d x %d x %d (%d invocations),"
                            + " shared memory %d KiB, push constants %d B, subgroup %d%n",
                    Integer.toUnsignedLong(l.maxComputeWorkGroupCount()[0]), l.maxComputeWorkGroupCount()[1],
                    l.maxComputeWorkGroupCount()[2], l.maxComputeWorkGroupSize()[0], l.maxComputeWorkGroupSize()[1],
                    l.maxComputeWorkGroupSize()[2], l.maxComputeWorkGroupInvocations(), l.maxComputeSharedMemorySize() / 1024,
                    l.maxPushConstantsSize(), l.subgroupSize());
            System.out.printf("   features: float64 %s, int64 %s, int16 %s, float16 %s, int8 %s, 8-bit storage %s,"
                            + " 16-bit storage %s, timestamps %s, timeline semaphores %s%n",
                    yn(f.float64()), yn(f.int64()), yn(f.int16()), yn(f.float16()), yn(f.int8()), yn(f.storageBuffer8Bit()),
                    yn(f.storageBuffer16Bit()), yn(f.timestamps()), yn(f.timelineSemaphores()));
            for (DeviceProperties.QueueFamily q : d.queueFamilies()) {
                System.out.printf("   queue family %d: %d queue(s)%s%s%s%n", q.index(), q.queueCount(),
                        q.compute() ? " compute" : "", q.graphics() ? " graphics" : "", q.transfer() ? " transfer" : "");
            }
        }
        return 0;
    }

    private static String yn(boolean b) {
        return b ? "yes" : "no";
    }
}
